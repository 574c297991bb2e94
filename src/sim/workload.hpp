// A trace matched to a cluster (slurm.conf) and a policy (shareq.conf): the jobs the simulator
// replays, with their share, families and node shapes resolved. Jobs that could never run (an
// unknown share or partition, no quota in any of their families, larger than any partition)
// are left out and counted by reason, as job_submit/shareq would refuse them.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/jobs.hpp"
#include "sim/node_pool.hpp"
#include "sim/slurm_conf.hpp"
#include "sim/trace.hpp"

namespace shareq::sim {

struct SimJob {
  policy::JobId id = 0;    // 1.. in submit order (ties: trace order): Slurm's job id order
  size_t trace_index = 0;  // into Trace::jobs
  policy::ShareId share = 0;
  int priority = 0;         // --share-priority
  policy::Time submit = 0;  // seconds after the trace's first submission
  int64_t run_s = 0;
  std::vector<policy::FamilyRequest> requests;  // the job's partitions in order, by family
  std::vector<Shape> shapes;                    // parallel to requests
};

struct Workload {
  std::vector<SimJob> jobs;              // by id
  std::vector<Skipped> dropped;          // left out, by reason
  int64_t origin = 0;                    // the trace time of simulated time 0
  std::vector<std::vector<int>> groups;  // node groups: partitions, then families
  std::vector<int64_t> node_gpus;
  std::vector<int64_t> family_gpus;  // GPUs of each family's nodes
  [[nodiscard]] int family_group(policy::FamilyId f) const {
    return static_cast<int>(groups.size() - family_gpus.size() + f);
  }
};

Workload prepare_workload(const Trace& trace, const SlurmCluster& cluster,
                          const policy::Policy& policy);

}  // namespace shareq::sim
