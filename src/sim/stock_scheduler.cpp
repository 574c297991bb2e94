// The --baseline stock: Slurm's stock plugins as the utilisation benchmark runs them
// (priority/multifactor, sched/backfill, select/cons_tres, no shares), with Slurm's passes:
//  - order: priority/multifactor's, PriorityWeightFairshare x the fair-share factor plus
//    PriorityWeightAge x the age factor (the other factors are 0 without QOS, partition or size
//    weights), highest first, then submission order. As in Slurm, both factors are computed
//    every PriorityCalcPeriod, on a grid from time 0 (the decay thread's, from slurmctld's start),
//    and at submission (age 0); a job keeps its priority between two calculations.
//    Fair share is Fair Tree's (Slurm's default) for shares that are accounts of equal
//    Fairshare under the root: ranked by decayed usage, least first, ties at one rank, the factor
//    rank / shares. Usage is billed as Slurm bills without TRESBillingWeights, in CPU-seconds,
//    one CPU per node (what sbatch asks for without -n or -c), decayed by PriorityDecayHalfLife
//    as multifactor does (1 - 0.693 / half-life per second). With no usage yet every share ties,
//    and with weights of 0 (Slurm's default) the order is submission order;
//  - placement: cons_tres's first fit in slurm.conf order (no packing);
//  - main pass: every job that does not fit stops its partition (fail_by_part), unless its
//    priority is below bf_min_prio_reserve, within partition_job_depth and default_queue_depth;
//  - backfill: every job that fits starts, in order. With no time limits (sbatch without
//    --time, MaxTime=INFINITE) Slurm can place no reservation, so backfill holds nothing back;
//    a trace whose jobs carry time limits is backfilled by Slurm with reservations, which this
//    model does not make.
// A job's partitions are tried in the user's order.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/pass_records.hpp"
#include "sim/schedulers.hpp"

namespace shareq::sim {

StockScheduler::StockScheduler(SimState& state, StockTuning tuning)
    : state_(state),
      tuning_(tuning),
      overlapping_(overlapping_partitions(state.workload())),
      usage_(state.policy().share_count(), 0.0),
      fs_factor_(state.policy().share_count(), 1.0) {
  tuning_.calc_period_s = std::max<int64_t>(tuning_.calc_period_s, 1);
}

// multifactor's decay thread, for every period that ended by now: usage decays and grows by
// what ran since, then the shares are ranked again.
void StockScheduler::calculate_due() {
  const policy::Time period = tuning_.calc_period_s;
  if (state_.now() - calculated_at_ < period) return;
  while (state_.now() - calculated_at_ >= period) {
    if (charging_.empty()) {  // nothing ran since: only decay, over every period at once
      accrue_usage(calculated_at_ + (state_.now() - calculated_at_) / period * period);
      break;
    }
    accrue_usage(calculated_at_ + period);
  }
  rank_accounts();
}

void StockScheduler::accrue_usage(policy::Time to) {
  const auto half_life = static_cast<double>(tuning_.decay_half_life_s);
  const double decay =
      half_life > 0 ? std::pow(1.0 - 0.693 / half_life, static_cast<double>(to - calculated_at_))
                    : 1.0;
  std::erase_if(charging_, [&](policy::JobId id) {
    const JobRun& run = state_.run(id);
    const bool ended = run.status != JobStatus::Running;
    const policy::Time from = std::max(run.start, calculated_at_);
    const policy::Time until = ended ? std::min(run.end, to) : to;
    if (until > from) {
      usage_[state_.job(id).share] +=
          static_cast<double>(until - from) * static_cast<double>(run.nodes.size());
    }
    return ended && run.end <= to;
  });
  for (double& u : usage_) u *= decay;
  calculated_at_ = to;
}

// Fair Tree over leaves of equal shares (fair_tree.c, _calc_tree_fs): least usage first, equal
// usage at one rank; the first rank is the number of shares.
void StockScheduler::rank_accounts() {
  std::vector<size_t> order(usage_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return usage_[a] < usage_[b]; });
  const auto count = static_cast<double>(order.size());
  double rank = count;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || usage_[order[i]] != usage_[order[i - 1]]) rank = count - static_cast<double>(i);
    fs_factor_[order[i]] = rank / count;
  }
}

// The job's priority as multifactor last set it: at the last calculation, or at its submission
// (age 0) when it came after it. Slurm keeps whole numbers, at least 1.
uint32_t StockScheduler::priority_of(const policy::PendingJob& job) const {
  const double age =
      static_cast<double>(std::max<policy::Time>(calculated_at_ - job.submit_time, 0));
  const auto max_age = static_cast<double>(tuning_.max_age_s);
  const double age_factor = max_age > 0 ? std::min(age, max_age) / max_age : 1.0;
  const double priority =
      tuning_.weight_fairshare * fs_factor_[job.share] + tuning_.weight_age * age_factor;
  return std::max<uint32_t>(static_cast<uint32_t>(std::min(priority, 4294967295.0)), 1);
}

PassOutcome StockScheduler::pass(const PassBounds& bounds) {
  PassOutcome out;
  calculate_due();
  struct Ranked {
    uint32_t priority;
    policy::Time submit;
    policy::JobId id;
  };
  std::vector<Ranked> order;
  for (const auto& p : state_.pending()) {
    if (p.eligible) order.push_back({priority_of(p), p.submit_time, p.id});
  }
  std::sort(order.begin(), order.end(), [](const Ranked& a, const Ranked& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  PassRecords tested(bounds, overlapping_);
  for (const Ranked& job : order) {
    const policy::JobId id = job.id;
    const bool reserves = bounds.min_prio_reserve == 0 || job.priority >= bounds.min_prio_reserve;
    bool done = true;
    for (int r : tested.next(state_.job(id), done)) {
      const int partition = state_.job(id).shapes[r].partition;
      if (tested.stopped(partition)) continue;
      if (const auto nodes = state_.first_fit(id, r)) {
        state_.start(id, r, *nodes);
        charging_.push_back(id);
        out.changed = true;
        break;
      }
      if (bounds.stop_partition && reserves) tested.stop(partition);
    }
    if (!done) break;
  }
  return out;
}

}  // namespace shareq::sim
