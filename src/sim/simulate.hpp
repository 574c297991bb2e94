// shareq sim's engine: replays a workload in simulated time, event by event (submissions, job
// ends, and Slurm's periodic pass), with one scheduler, and reports the figures. Deterministic:
// the same inputs give the same result (no clock, no randomness, every tie broken by job id).
//
// Cadence, as slurmctld's: a pass after each batch of events at one instant, and a periodic pass
// every sched_interval_s while jobs are pending, unless the last pass changed nothing and no job
// waits on a rule of time (ReclaimAfter, ReclaimMinRuntime): such a pass would decide the same.
// With submit_delay_s (Slurm's batch_sched_delay), submissions alone get a pass no sooner than
// submit_delay_s after the last pass that no job end triggered (slurmctld's background loop);
// a job end still triggers one at once (its epilog's completion does in Slurm).
// Cost: O(events x log) for the event queue, ledger and placement; a pass adds
// O(pending log pending) to rank the queue.
#pragma once

#include <cstdint>

#include "sim/schedulers.hpp"
#include "sim/sim_result.hpp"
#include "sim/slurm_conf.hpp"
#include "sim/trace.hpp"
#include "sim/workload.hpp"

namespace shareq::sim {

enum class SchedulerKind { Shareq, Fifo };

struct SimOptions {
  int64_t sched_interval_s = 60;  // Slurm's sched_interval
  int64_t submit_delay_s = 0;     // Slurm's batch_sched_delay; 0: a pass at each submission
  ShareqTuning tuning;            // priority decay
  bool keep_jobs = true;          // fill SimResult::jobs (the per-job CSV)
};

// Preconditions: `workload` came from prepare_workload(trace, cluster, policy).
SimResult simulate(const Trace& trace, const Workload& workload, const SlurmCluster& cluster,
                   const policy::Policy& policy, SchedulerKind kind, const SimOptions& options);

// Nearest-rank percentile of sorted values (0 for none).
int64_t percentile(const std::vector<int64_t>& sorted, int percent);

}  // namespace shareq::sim
