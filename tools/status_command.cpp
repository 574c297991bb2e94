// shareq status [--family F] [--config FILE] [--json]
#include <array>
#include <ostream>

#include "cluster_state.hpp"
#include "command_options.hpp"
#include "commands.hpp"
#include "slurm_client.hpp"
#include "status_report.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kSynopsis = "shareq status [--family F] [--config FILE] [--json]";
constexpr std::array<std::string_view, 3> kOptions = {"--family", "--config", "--json"};

std::vector<std::string> family_names(const Config& config) {
  std::vector<std::string> names;
  for (const Family& family : config.families) names.push_back(family.name);
  return names;
}

}  // namespace

int run_status(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  if (!options->operands.empty()) {
    err << "shareq: status: unexpected argument " << text::quote(options->operands.front())
        << "\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  std::optional<Config> config = load_command_config(*options, "status", err);
  if (!config) return kExitFailed;
  if (options->family && config->find_family(*options->family) == nullptr) {
    err << "shareq: status: --family: no family " << text::quote(*options->family) << " in "
        << config->file << "; families: " << text::join(family_names(*config)) << "\n";
    return kExitUsage;
  }
  Result<ClusterData> data = load_cluster_data();
  if (!data) {
    err << "shareq: status: " << data.error().to_string() << "\n";
    return kExitFailed;
  }
  const ClusterState state(*config, std::move(data).value());
  for (const std::string& problem : state.problems()) {
    err << "shareq: status: warning: " << problem << "\n";
  }
  const std::vector<FamilyStatus> families = family_status(state, options->family);
  out << (options->json ? format_status_json(families) : format_status(families));
  return kExitOk;
}

}  // namespace shareq::tool
