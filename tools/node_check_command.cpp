// shareq node-check [--family F] [--drain] [--config FILE]: this node's hardware (hwloc) against
// its families' Hardware=, for Slurm's HealthCheckProgram. Exit 0 healthy, 1 not (a mismatch, or
// a topology hwloc cannot read: the check fails closed), 2 a bad command line or shareq.conf, or
// the node's partitions cannot be had from slurmctld. One line on stdout says which.
#include <unistd.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <ostream>

#include "command_options.hpp"
#include "commands.hpp"
#include "hwtopo/topology.hpp"
#include "node_check.hpp"
#include "slurm_client.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kSynopsis = "shareq node-check [--family F] [--drain] [--config FILE]";
constexpr std::array<std::string_view, 3> kOptions = {"--family", "--drain", "--config"};

// SLURMD_NODENAME (slurmd sets it for HealthCheckProgram and prologs), else `hostname -s`.
std::string this_node_name() {
  const char* slurmd = std::getenv("SLURMD_NODENAME");  // NOLINT(concurrency-mt-unsafe)
  if (slurmd != nullptr && *slurmd != '\0') return slurmd;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  std::string name(host);
  return name.substr(0, name.find('.'));
}

}  // namespace

int run_node_check(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  if (!options->operands.empty()) {
    err << "shareq: node-check: unexpected argument " << text::quote(options->operands.front())
        << "\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  const std::optional<Config> config = load_command_config(*options, "node-check", err);
  if (!config) return kExitUsage;
  const std::string node = this_node_name();
  std::vector<std::string> partitions;
  if (!options->family) {
    if (node.empty()) {
      err << "shareq: node-check: cannot tell this node's name: set SLURMD_NODENAME, or give "
             "--family\n";
      return kExitUsage;
    }
    Result<std::vector<std::string>> loaded = load_node_partitions(node);
    if (!loaded) {
      err << "shareq: node-check: " << loaded.error().to_string() << "\n";
      return kExitUsage;
    }
    partitions = std::move(loaded).value();
  }
  const Result<std::vector<const Family*>> families =
      families_to_check(*config, options->family, partitions);
  if (!families) {
    err << "shareq: node-check: " << families.error().to_string() << "\n";
    return kExitUsage;
  }
  NodeCheckVerdict verdict;
  if (families_with_hardware(families.value()).empty()) {
    verdict = nothing_to_check(families.value(), node);
  } else {
    const Result<HardwareFacts> facts = hwtopo::read_hardware(hwtopo::xml_file_from_environment());
    verdict =
        facts ? judge_hardware(families.value(), facts.value()) : topology_failure(facts.error());
  }
  out << verdict.line << "\n";
  if (!verdict.healthy && options->drain) {
    if (node.empty()) {
      err << "shareq: node-check: --drain: cannot tell this node's name: set SLURMD_NODENAME\n";
    } else if (const Result<bool> drained = drain_node(node, verdict.line); !drained) {
      err << "shareq: node-check: --drain: " << drained.error().to_string() << "\n";
    }
  }
  return verdict.healthy ? kExitOk : kExitFailed;
}

}  // namespace shareq::tool
