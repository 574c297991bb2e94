// shareq sim's engine: replays a workload in simulated time, event by event (submissions, job
// ends, and Slurm's periodic pass), with one scheduler, and reports the figures. Deterministic:
// the same inputs give the same result (no clock, no randomness, every tie broken by job id).
//
// Cadence, as slurmctld's (cadence.hpp): Slurm's bounded main pass at each job end, after
// submissions (batch_sched_delay) and every sched_interval, and its backfill pass every
// bf_interval, with the site's SchedulerParameters (sched_params.hpp).
// Cost: O(events x log) for the event queue, ledger and placement; a pass adds
// O(pending log pending) to rank the queue.
#pragma once

#include <cstdint>

#include "sim/sched_params.hpp"
#include "sim/schedulers.hpp"
#include "sim/sim_result.hpp"
#include "sim/slurm_conf.hpp"
#include "sim/trace.hpp"
#include "sim/workload.hpp"

namespace shareq::sim {

enum class SchedulerKind { Shareq, Fifo, Stock };

struct SimOptions {
  SchedulerParams scheduler;  // Slurm's passes: slurm.conf's, or Slurm's defaults
  ShareqTuning tuning;        // priority decay
  StockTuning stock;          // the stock baseline's priority/multifactor
  bool keep_jobs = true;      // fill SimResult::jobs (the per-job CSV)
  // A preempted (requeued) job's wait before it may start again: slurm.conf's AuthInfo
  // cred_expire + 1 s (SlurmCluster::requeue_hold_s); 0: at once.
  policy::Time requeue_hold_s = 0;
};

// Preconditions: `workload` came from prepare_workload(trace, cluster, policy).
SimResult simulate(const Trace& trace, const Workload& workload, const SlurmCluster& cluster,
                   const policy::Policy& policy, SchedulerKind kind, const SimOptions& options);

// Nearest-rank percentile of sorted values (0 for none).
int64_t percentile(const std::vector<int64_t>& sorted, int percent);

}  // namespace shareq::sim
