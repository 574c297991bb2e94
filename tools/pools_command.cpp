// shareq pools [--json] | shareq pools end POOL
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

constexpr std::string_view kSynopsis = "shareq pools [--json] | shareq pools end POOL";
constexpr std::array<std::string_view, 1> kOptions = {"--json"};

// Asks slurmctld to end `name` (Terminated): Extra=shareq:end on its nodes, which
// plugins/ctld/warm_pools.cpp acts on at its next periodic pass.
int end_pool(const WarmPools& pools, const std::string& name, std::ostream& out,
             std::ostream& err) {
  const WarmPoolRow* pool = find_pool(pools, name);
  if (pool == nullptr) {
    err << "shareq: pools: end: no warm pool " << text::quote(name) << "; "
        << (pools.pools.empty() ? std::string("there is none") : "pools: " + pool_names(pools))
        << "\n";
    return kExitFailed;
  }
  const std::string nodes = text::join(pool->nodes, ",");
  const Result<bool> done = set_node_extra(nodes, std::string(kEndPoolRequest));
  if (!done) {
    err << "shareq: pools: end: " << done.error().to_string() << "\n";
    return kExitFailed;
  }
  out << "shareq: asked slurmctld to end " << name << " on " << nodes
      << "; it ends at slurmctld's next periodic pass (shareq pools shows it gone)\n";
  return kExitOk;
}

}  // namespace

int run_pools(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  const auto& operands = options->operands;
  const bool ending = !operands.empty() && operands.front() == "end";
  if ((ending && operands.size() != 2) || (!ending && !operands.empty())) {
    err << "shareq: pools: "
        << (ending ? std::string("end: expected one pool name (wp-N)")
                   : "unexpected argument " + text::quote(operands.front()))
        << "\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  Result<std::vector<NodeInfo>> nodes = load_nodes();
  if (!nodes) {
    err << "shareq: pools: " << nodes.error().to_string() << "\n";
    return kExitFailed;
  }
  const WarmPools pools = collect_pools(nodes.value());
  if (ending) return end_pool(pools, operands[1], out, err);
  const auto now = static_cast<int64_t>(std::time(nullptr));
  out << (options->json ? format_pools_json(pools, now) : format_pools(pools, now));
  return kExitOk;
}

}  // namespace shareq::tool
