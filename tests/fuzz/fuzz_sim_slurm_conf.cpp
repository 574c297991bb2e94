// parse_slurm_conf never crashes; it gives a cluster exactly when it gives no error, every error
// has a message, every partition names nodes that exist, the limits hold, the durations
// (PriorityCalcPeriod, PriorityDecayHalfLife) are whole minutes, and a requeued job's hold
// (AuthInfo cred_expire + 1) is at least Slurm's smallest, 6 s. An Include of a path ending in
// "nodes.conf" reads a fixed file of nodes, "missing.conf" nothing, any other path the input
// itself (cycles, nesting, the byte limit); a cluster it gives has nodes.
//
// The limits are far below the real ones (SlurmConfLimits' defaults: 100,000 nodes): the paths are
// the same, and an input that expands to the real limit costs about 200 ms under the sanitizers,
// which held the run to about 1,200 inputs/s; with limits of 500 names a host list, 1,000 nodes and
// 5,000 partition entries, inputs near them still took 10-40 ms and the run about 1,500 inputs/s.
// parsers_test.cpp checks the real limits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sim/slurm_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::sim::SlurmConfLimits limits{.hostlist_names = 50,
                                            .nodes = 100,
                                            .partition_nodes = 500,
                                            .include_depth = 4,
                                            .bytes = 32768};
  const shareq::sim::IncludeReader read_include =
      [text](const std::string& path) -> std::variant<std::string, shareq::sim::InputError> {
    const auto ends_with = [&](std::string_view end) {
      return path.size() >= end.size() &&
             path.compare(path.size() - end.size(), end.size(), end) == 0;
    };
    if (ends_with("missing.conf")) return shareq::sim::InputError{path, 0, "", "cannot read"};
    if (ends_with("nodes.conf")) return std::string("NodeName=n[1-4] Gres=gpu:4\n");
    return std::string(text);
  };
  const auto parsed = shareq::sim::parse_slurm_conf(text, "slurm.conf", limits, read_include);
  if (parsed.value.has_value() == !parsed.errors.empty()) std::abort();
  for (const auto& e : parsed.errors) {
    if (e.message.empty() || e.to_string().empty()) std::abort();
  }
  if (!parsed.value) return 0;
  if (parsed.value->nodes.empty() || parsed.value->nodes.size() > limits.nodes) std::abort();
  size_t listed = 0;
  for (const auto& partition : parsed.value->partitions) {
    listed += partition.nodes.size();
    for (int node : partition.nodes) {
      if (node < 0 || static_cast<size_t>(node) >= parsed.value->nodes.size()) std::abort();
    }
  }
  if (listed > limits.partition_nodes) std::abort();
  // Durations are whole minutes (time_str2mins), never negative.
  for (const int64_t seconds :
       {parsed.value->priority_calc_period_s, parsed.value->decay_half_life_s}) {
    if (seconds < 0 || seconds % 60 != 0) std::abort();
  }
  if (parsed.value->requeue_hold_s < 6) std::abort();
  return 0;
}
