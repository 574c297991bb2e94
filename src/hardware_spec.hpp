// The node hardware a family expects (`Hardware=` on a Family line) and the check of what a node
// has against it. Pure: no hwloc, no Slurm; src/hwtopo/ reads a node's HardwareFacts with hwloc.
//
//   Family=p5 Partitions=p5 Capacity=gres/gpu=320 Hardware=gpus=8,numa=2,cores=96
//
// Keys: gpus (GPUs as src/hwtopo/topology.hpp counts them), numa (NUMA nodes), cores (physical
// cores); each optional, each at most once; gpus an integer >= 0, numa and cores >= 1 (every node
// has a NUMA node and a core). A key left out is not checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace shareq {

struct HardwareSpec {
  std::optional<int64_t> gpus;
  std::optional<int64_t> numa;
  std::optional<int64_t> cores;

  [[nodiscard]] bool empty() const { return !gpus && !numa && !cores; }
  bool operator==(const HardwareSpec&) const = default;
};

// The largest count a Hardware= key accepts.
inline constexpr int64_t kMaxHardwareCount = 1000000;

// Parses a Hardware= value: "gpus=8,numa=2,cores=96", any subset, any order, each key once (keys
// case-insensitive). The error's field is "Hardware"; its message names the key and the allowed
// values. Never throws.
Result<HardwareSpec> parse_hardware_spec(std::string_view value);

// The value in canonical form ("gpus=8,numa=2,cores=96", keys that are set, in that order); ""
// for an empty spec.
std::string format_hardware_spec(const HardwareSpec& spec);

// What a node has.
struct HardwareFacts {
  int64_t gpus = 0;
  int64_t numa = 0;
  int64_t cores = 0;
  bool operator==(const HardwareFacts&) const = default;
};

// Every difference between `facts` and what `family` expects, in the order gpus, numa, cores,
// each one phrase: "7 GPUs found, family p5 expects 8", "1 NUMA node found, family p5 expects 2",
// "48 cores found, family p5 expects 96". Empty when the node matches.
std::vector<std::string> hardware_mismatches(const HardwareFacts& facts, const HardwareSpec& spec,
                                             std::string_view family);

// "8 GPUs, 2 NUMA nodes, 96 cores": what a node has, for the healthy line.
std::string describe_hardware(const HardwareFacts& facts);

}  // namespace shareq
