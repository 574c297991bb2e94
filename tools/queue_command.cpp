// shareq queue [--family F] [--share S] [--limit N] [--config FILE] [--json]
#include <array>
#include <ostream>

#include "cluster_state.hpp"
#include "command_options.hpp"
#include "commands.hpp"
#include "queue_report.hpp"
#include "slurm_client.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kSynopsis =
    "shareq queue [--family F] [--share S] [--limit N] [--config FILE] [--json]";
constexpr std::array<std::string_view, 5> kOptions = {"--family", "--share", "--limit", "--config",
                                                      "--json"};

std::vector<std::string> family_names(const Config& config) {
  std::vector<std::string> names;
  for (const Family& family : config.families) names.push_back(family.name);
  return names;
}

int usage_error(std::ostream& err, const std::string& message) {
  err << "shareq: queue: " << message << "\nusage: " << kSynopsis << "\n";
  return kExitUsage;
}

}  // namespace

int run_queue(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  if (!options->operands.empty()) {
    return usage_error(err, "unexpected argument " + text::quote(options->operands.front()));
  }
  QueueFilter filter;
  if (options->limit) {
    if (auto error = limit_error(*options->limit, filter.limit)) return usage_error(err, *error);
  }
  std::optional<Config> config = load_command_config(*options, "queue", err);
  if (!config) return kExitFailed;
  if (options->family && config->find_family(*options->family) == nullptr) {
    return usage_error(err, "--family: no family " + text::quote(*options->family) + " in " +
                                config->file + "; families: " + text::join(family_names(*config)));
  }
  filter.family = options->family;
  if (options->share) {
    const policy::Policy policy = policy::Policy::compile(*config);
    if (auto error = share_error(policy, *options->share)) return usage_error(err, *error);
    filter.share = options->share;
  }
  Result<ClusterData> data = load_cluster_data();
  if (!data) {
    err << "shareq: queue: " << data.error().to_string() << "\n";
    return kExitFailed;
  }
  const ClusterState state(*config, std::move(data).value());
  for (const std::string& problem : state.problems()) {
    err << "shareq: queue: warning: " << problem << "\n";
  }
  const std::vector<FamilyQueue> families = queue_snapshot(state, filter, state.now());
  out << (options->json ? format_queue_json(families, state.now()) : format_queue(families));
  return kExitOk;
}

}  // namespace shareq::tool
