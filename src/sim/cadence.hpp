// When slurmctld runs its two kinds of pass (sched_params.hpp), in simulated time, and what each
// may test. Internal to simulate().
//
// Main pass (bounded: partition_job_depth, fail_by_part, default_queue_depth):
//  - at each job end (its epilog's completion calls schedule() at once; Slurm then tests
//    default_queue_depth + 1 jobs at most);
//  - every sched_interval, a full-queue pass (no default_queue_depth), on a grid from time 0
//    (slurmctld's background loop, once a second, runs it when sched_interval has passed);
//  - after submissions, at the first second batch_sched_delay after the last of those
//    background passes (periodic or for submissions), or at the periodic one if it comes first.
// Backfill pass (SchedulerType=sched/backfill): every bf_interval, on a grid from time 0, over
//    the pending jobs in order, bf_max_job_test of them at most, no partition stopped.
// At one instant the main pass runs first. A pass that would decide as the last pass of its kind
// did (nothing changed since, nothing started then, no job waits on a rule of time) is not run:
// it would start nothing; its time still counts for batch_sched_delay.
#pragma once

#include <cstdint>
#include <limits>

#include "policy/jobs.hpp"
#include "sim/sched_params.hpp"
#include "sim/schedulers.hpp"

namespace shareq::sim {

inline constexpr policy::Time kNoWake = std::numeric_limits<policy::Time>::max();

class Cadence {
 public:
  explicit Cadence(const SchedulerParams& params) : params_(params) {}

  // This instant's events happened (a job ended, jobs were submitted); the main pass due now, if
  // any (nullopt: none), with its bounds.
  std::optional<PassBounds> main_due(policy::Time now, bool ended, bool submitted, bool pending);
  // The backfill pass due now, with its bounds for `pending` jobs (nullopt: none).
  [[nodiscard]] std::optional<PassBounds> backfill_due(policy::Time now, size_t pending) const;
  // A requeued job's BeginTime passed. Slurm starts no pass for it; the next periodic main pass
  // and backfill pass consider it.
  void job_eligible() { main_stale_ = backfill_stale_ = true; }
  void main_ran(const PassOutcome& pass);
  void backfill_ran(const PassOutcome& pass);
  // The next instant a pass may be due without an event (kNoWake: none).
  [[nodiscard]] policy::Time next_wake(policy::Time now, bool pending) const;

 private:
  [[nodiscard]] int64_t main_interval() const {
    return params_.sched_interval_s > 0 ? params_.sched_interval_s : 1;
  }
  [[nodiscard]] policy::Time last_background(policy::Time now) const;

  SchedulerParams params_;
  bool submissions_waiting_ = false;  // slurmctld's job_sched_cnt
  policy::Time last_for_submissions_ = std::numeric_limits<policy::Time>::min() / 2;
  bool main_stale_ = false;      // a main pass might now decide otherwise than the last one
  bool backfill_stale_ = false;  // the same for backfill
};

}  // namespace shareq::sim
