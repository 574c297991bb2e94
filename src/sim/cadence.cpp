#include "sim/cadence.hpp"

#include <algorithm>

namespace shareq::sim {
namespace {

// The grid point at or before `now` (times are >= 0).
policy::Time grid_floor(policy::Time now, int64_t interval) { return now - now % interval; }

}  // namespace

// The last background pass (periodic, or for submissions) at or before now: slurmctld's
// last_sched_time. The periodic ones count whether or not the simulator ran them.
policy::Time Cadence::last_background(policy::Time now) const {
  return std::max(last_for_submissions_, grid_floor(now, main_interval()));
}

std::optional<PassBounds> Cadence::main_due(policy::Time now, bool ended, bool submitted,
                                            bool pending) {
  if (ended || submitted) main_stale_ = backfill_stale_ = true;
  if (submitted) submissions_waiting_ = true;
  if (!params_.main_passes()) return std::nullopt;
  const bool periodic = now % main_interval() == 0;
  bool for_submissions = false;
  if (periodic) {
    submissions_waiting_ = false;
  } else if (submissions_waiting_ && now - last_background(now) >= params_.batch_sched_delay_s) {
    for_submissions = true;
    submissions_waiting_ = false;
    last_for_submissions_ = now;
  }
  if (!pending || !(ended || for_submissions || (periodic && main_stale_))) return std::nullopt;
  PassBounds bounds;
  bounds.partition_depth = params_.partition_job_depth;
  bounds.queue_depth = periodic ? -1 : params_.default_queue_depth;
  bounds.stop_partition = true;
  bounds.min_prio_reserve = params_.bf_min_prio_reserve;
  return bounds;
}

std::optional<PassBounds> Cadence::backfill_due(policy::Time now, size_t pending) const {
  if (!params_.backfill_passes() || pending == 0 || !backfill_stale_) return std::nullopt;
  if (now % params_.bf_interval_s != 0) return std::nullopt;
  PassBounds bounds;
  if (static_cast<int64_t>(pending) > params_.bf_max_job_test) {
    bounds.queue_depth = params_.bf_max_job_test - 1;  // tests queue_depth + 1 records
  }
  return bounds;
}

void Cadence::main_ran(const PassOutcome& pass) {
  if (pass.changed) backfill_stale_ = true;
  if (!pass.changed && !pass.time_may_help) main_stale_ = false;
}

void Cadence::backfill_ran(const PassOutcome& pass) {
  if (pass.changed) main_stale_ = true;
  if (!pass.changed && !pass.time_may_help) backfill_stale_ = false;
}

policy::Time Cadence::next_wake(policy::Time now, bool pending) const {
  policy::Time wake = kNoWake;
  if (params_.main_passes()) {
    const policy::Time next_periodic = grid_floor(now, main_interval()) + main_interval();
    if (pending && main_stale_) wake = next_periodic;
    if (submissions_waiting_) {
      wake = std::min({wake, next_periodic,
                       std::max(now + 1, last_background(now) + params_.batch_sched_delay_s)});
    }
  }
  if (params_.backfill_passes() && pending && backfill_stale_) {
    wake = std::min(wake, grid_floor(now, params_.bf_interval_s) + params_.bf_interval_s);
  }
  return wake;
}

}  // namespace shareq::sim
