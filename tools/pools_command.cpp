// shareq pools [--json]
#include <array>
#include <ctime>
#include <ostream>

#include "command_options.hpp"
#include "commands.hpp"
#include "slurm_client.hpp"
#include "text.hpp"
#include "warm_extra.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kSynopsis = "shareq pools [--json]";
constexpr std::array<std::string_view, 1> kOptions = {"--json"};

}  // namespace

int run_pools(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  if (!options->operands.empty()) {
    err << "shareq: pools: unexpected argument " << text::quote(options->operands.front())
        << "\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  Result<std::vector<NodeInfo>> nodes = load_nodes();
  if (!nodes) {
    err << "shareq: pools: " << nodes.error().to_string() << "\n";
    return kExitFailed;
  }
  const WarmPools pools = collect_pools(nodes.value());
  const auto now = static_cast<int64_t>(std::time(nullptr));
  out << (options->json ? format_pools_json(pools, now) : format_pools(pools, now));
  return kExitOk;
}

}  // namespace shareq::tool
