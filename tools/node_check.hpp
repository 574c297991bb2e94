// shareq node-check's decisions, without hwloc or Slurm: which families a node is checked
// against and the one line that says how its hardware compares (hardware_spec.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "hardware_spec.hpp"
#include "result.hpp"

namespace shareq::tool {

// The families a node is checked against: `family` when given (an Error, field "--family",
// naming the families when the config has none of that name), else the families of the node's
// partitions, in config order, each once (partitions of no family are left out).
Result<std::vector<const Family*>> families_to_check(const Config& config,
                                                     const std::optional<std::string>& family,
                                                     const std::vector<std::string>& partitions);

// Those of `families` that set Hardware=.
std::vector<const Family*> families_with_hardware(const std::vector<const Family*>& families);

// node-check's outcome: healthy or not, and its one line (no newline), which is also the drain
// reason when the node is unhealthy.
struct NodeCheckVerdict {
  bool healthy = true;
  std::string line;
};

// Nothing to compare: no family, or none with Hardware=.
// "shareq: hardware: ok: nothing to check (families p4: no Hardware=)" /
// "shareq: hardware: ok: nothing to check (node n1 is in no shareq family)".
NodeCheckVerdict nothing_to_check(const std::vector<const Family*>& families,
                                  std::string_view node);

// `facts` against every family of `families` that sets Hardware=: healthy
// ("shareq: hardware: ok: 8 GPUs, 2 NUMA nodes, 96 cores, as family p5 expects") or every
// mismatch, "; "-separated ("shareq: hardware: 7 GPUs found, family p5 expects 8").
NodeCheckVerdict judge_hardware(const std::vector<const Family*>& families,
                                const HardwareFacts& facts);

// The topology could not be read: the check fails closed.
// "shareq: hardware: cannot check: topology: this machine: ..."
NodeCheckVerdict topology_failure(const Error& error);

}  // namespace shareq::tool
