// What the select hook should do with warm nodes for one pending job.
//
// WarmPoolMode=prefer: a job that matches a pool goes to its nodes; other jobs avoid warm nodes
// and take them only when nothing else fits (then on_nodes_taken ends those pools).
// WarmPoolMode=reserve: warm nodes wait for a matching job until their pool expires; other jobs
// may not use them at all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warm/registry.hpp"

namespace shareq::warm {

struct NodeAdvice {
  std::optional<PoolId> pool;       // the pool to claim, when one matches and all its nodes are
                                    // candidates
  std::vector<std::string> prefer;  // that pool's nodes: place the job there first
  std::vector<std::string> avoid;   // other pools' warm nodes: use only when nothing else fits
  std::vector<std::string> forbid;  // reserve mode: warm nodes of pools the job does not match
  bool operator==(const NodeAdvice&) const = default;
};

// Advice for `job` among `candidates` (the nodes the job could run on now) at `now`. Only
// waiting, unexpired pools count; every list is a sorted subset of `candidates`. Another pool
// the job matches is avoided, never forbidden. A pure function of its arguments.
NodeAdvice advise_placement(const WarmPoolRegistry& registry, const JobToStart& job,
                            const std::vector<std::string>& candidates, Time now);

}  // namespace shareq::warm
