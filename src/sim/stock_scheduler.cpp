// The --baseline stock: Slurm's stock plugins as the utilisation benchmark runs them
// (priority/multifactor, sched/backfill, select/cons_tres, no shares), with Slurm's passes:
//  - order: submission order (job id). priority/multifactor's fair-share and age factors are
//    recomputed every PriorityCalcPeriod (5 min by default), and with accounts of equal shares
//    and no usage yet every job gets the same factors: what the benchmark's runs (90-450 s on a
//    fresh cluster) see, bar the last minutes of its longest;
//  - placement: cons_tres's first fit in slurm.conf order (no packing);
//  - main pass: every job that does not fit stops its partition (fail_by_part; the model has no
//    priority values, so bf_min_prio_reserve exempts none), within partition_job_depth and
//    default_queue_depth;
//  - backfill: every job that fits starts, in order. With no time limits (sbatch without
//    --time, MaxTime=INFINITE) Slurm can place no reservation, so backfill holds nothing back;
//    a trace whose jobs carry time limits is backfilled by Slurm with reservations, which this
//    model does not make.
// A job's partitions are tried in the user's order.
#include <algorithm>

#include "sim/pass_records.hpp"
#include "sim/schedulers.hpp"

namespace shareq::sim {

StockScheduler::StockScheduler(SimState& state)
    : state_(state), overlapping_(overlapping_partitions(state.workload())) {}

PassOutcome StockScheduler::pass(const PassBounds& bounds) {
  PassOutcome out;
  std::vector<policy::JobId> order;
  for (const auto& p : state_.pending()) {
    if (p.eligible) order.push_back(p.id);
  }
  std::sort(order.begin(), order.end());
  PassRecords tested(bounds, overlapping_);
  for (policy::JobId id : order) {
    bool done = true;
    for (int r : tested.next(state_.job(id), done)) {
      const int partition = state_.job(id).shapes[r].partition;
      if (tested.stopped(partition)) continue;
      if (const auto nodes = state_.first_fit(id, r)) {
        state_.start(id, r, *nodes);
        out.changed = true;
        break;
      }
      if (bounds.stop_partition) tested.stop(partition);
    }
    if (!done) break;
  }
  return out;
}

}  // namespace shareq::sim
