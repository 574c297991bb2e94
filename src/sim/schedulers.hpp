// The two schedulers a simulation can run on SimState: shareq's (the policy core's order and
// decide(), as slurmctld runs them) and a plain FIFO with EASY backfill (the --baseline). A pass
// decides for the pending jobs at now() and acts through SimState. Internal.
#pragma once

#include <cstdint>

#include "policy/ordering.hpp"
#include "policy/victims.hpp"
#include "sim/sim_state.hpp"

namespace shareq::sim {

struct PassOutcome {
  bool changed = false;        // something started or was requeued
  bool time_may_help = false;  // a job waits on a rule of time (ReclaimAfter, ReclaimMinRuntime)
  int64_t decisions = 0;       // decide() calls
};

struct ShareqTuning {
  int64_t priority_calc_period_s = 300;   // Slurm's PriorityCalcPeriod
  int64_t decay_half_life_s = 7 * 86400;  // Slurm's PriorityDecayHalfLife
};

class ShareqScheduler {
 public:
  ShareqScheduler(SimState& state, ShareqTuning tuning);
  PassOutcome pass();

 private:
  void accrue_usage();
  void try_job(policy::JobId id, PassOutcome& out);
  bool try_request(const policy::PendingJob& job, int request, PassOutcome& out);
  bool may_preempt(const policy::PendingJob& job, int request, PassOutcome& out);
  bool preempt_and_start(policy::JobId id, int request, const std::vector<policy::Victim>& victims);
  bool reclaim_to_fit(policy::JobId id, int request, const std::vector<policy::JobId>& candidates);

  SimState& state_;
  ShareqTuning tuning_;
  policy::DecayedUsage usage_;
  policy::Time accrued_at_ = 0;
  policy::PreemptionExposure exposure_;
  bool exposure_stale_ = true;
};

class FifoScheduler {
 public:
  explicit FifoScheduler(SimState& state) : state_(state) {}
  PassOutcome pass();

 private:
  SimState& state_;
};

}  // namespace shareq::sim
