// The schedulers a simulation can run on SimState: shareq's (the policy core's order and
// decide(), as slurmctld runs them), and two baselines: Slurm's stock plugins as the benchmarks
// run them, and a plain FIFO with EASY backfill. A pass decides for the pending jobs at now()
// and acts through SimState, within its PassBounds (Slurm's main pass is bounded, its backfill
// is not; the FIFO baseline ignores them). Internal.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "policy/ordering.hpp"
#include "policy/usage.hpp"
#include "policy/victims.hpp"
#include "sim/sim_state.hpp"
#include "sim/try_memo.hpp"

namespace shareq::sim {

class PassRecords;

// What one pass may test. A record is one request (partition) of a pending job, in the order
// of the ranked queue, as Slurm's build_job_queue makes one per job and partition.
struct PassBounds {
  int64_t partition_depth = 0;   // records tested per partition; 0: no bound
  int64_t queue_depth = -1;      // the pass stops after testing this + 1 records; -1: no bound
  bool stop_partition = false;   // a job that does not fit stops its partition (fail_by_part),
  int64_t min_prio_reserve = 0;  // unless its priority is below this
  [[nodiscard]] bool bounded() const {
    return partition_depth > 0 || queue_depth >= 0 || stop_partition;
  }
};

struct PassOutcome {
  bool changed = false;        // something started or was requeued
  bool time_may_help = false;  // a job waits on a rule of time (ReclaimAfter, ReclaimMinRuntime)
  int64_t decisions = 0;       // decide() calls
};

struct ShareqTuning {
  // How often usage is accrued (and so the shares' standing changes): priority/shareq's period,
  // policy::recalc_period_s of slurm.conf's PriorityCalcPeriod (5 s).
  int64_t priority_calc_period_s = policy::kMaxRecalcPeriodS;
  int64_t decay_half_life_s = 7 * 86400;  // Slurm's PriorityDecayHalfLife
  // Skip the tries whose answer is known (Waiting, TryMemo, a pass where nothing can start);
  // false tries every pending job in every pass, the reference the tests compare with.
  bool skip_known_waits = true;
};

class ShareqScheduler {
 public:
  ShareqScheduler(SimState& state, ShareqTuning tuning);
  PassOutcome pass(const PassBounds& bounds = {});

 private:
  // What one job's last full try (every request) found when nothing started: it waits, and
  // will again, with the same time_may_help, while state_.generation() is `generation` and
  // now() is before `until` (the next time a rule of time could change a decision).
  struct Waiting {
    uint64_t generation = UINT64_MAX;
    policy::Time until = 0;
    bool time_may_help = false;
  };
  struct StartedAt {
    policy::Time start = 0;
    policy::JobId id = 0;
    uint32_t epoch = 0;
  };

  void accrue_usage();
  void rank_queue();
  bool any_may_start(PassOutcome& out);
  void bounded_pass(const PassBounds& bounds, PassOutcome& out);
  bool try_records(policy::JobId id, uint32_t priority, const PassBounds& bounds,
                   PassRecords& tested, PassOutcome& out);
  bool known_wait(policy::JobId id, const TryKey& key, PassOutcome& out);
  void started(policy::JobId id, PassOutcome& out);
  bool try_job(policy::JobId id, PassOutcome& out, bool act);
  bool try_request(const policy::PendingJob& job, int request, PassOutcome& out, Attempt& attempt,
                   bool act);
  void wait(policy::JobId id, const Attempt& attempt, PassOutcome& out);
  bool may_preempt(const policy::PendingJob& job, int request, Attempt& attempt);
  policy::Time wait_holds_until(const policy::PendingJob& job, const Attempt& attempt);
  policy::Time next_coming_of_age();
  bool preempt_and_start(policy::JobId id, int request, const std::vector<policy::Victim>& victims,
                         bool act);
  bool reclaim_to_fit(policy::JobId id, int request, const std::vector<policy::JobId>& candidates,
                      bool act);

  SimState& state_;
  ShareqTuning tuning_;
  policy::DecayedUsage usage_;
  policy::Time accrued_at_ = 0;
  policy::PreemptionExposure exposure_;
  bool exposure_stale_ = true;
  uint64_t usage_version_ = 0;  // bumped whenever usage_ is accrued
  // The queue's order (priority, id) and what it was ranked from.
  std::vector<std::pair<uint32_t, policy::JobId>> order_;
  uint64_t order_queue_generation_ = UINT64_MAX;
  uint64_t order_usage_version_ = UINT64_MAX;
  std::vector<Waiting> waiting_;  // [id - 1]
  TryMemo memo_;
  // Running jobs by start, oldest first, that may not have run ReclaimMinRuntime yet (entries
  // of jobs no longer running in that run are dropped when they reach the front).
  std::deque<StartedAt> young_;
  std::vector<std::vector<int>> overlapping_;  // partition -> the partitions sharing a node
};

// priority/multifactor as slurm.conf sets it, for the stock baseline (SlurmCluster's fields).
struct StockTuning {
  int64_t calc_period_s = 300;  // PriorityCalcPeriod: how often fair share and age are computed
  int64_t decay_half_life_s = 7 * 86400;  // PriorityDecayHalfLife (0: no decay)
  uint32_t weight_fairshare = 0;          // PriorityWeightFairshare
  uint32_t weight_age = 0;                // PriorityWeightAge
  int64_t max_age_s = 7 * 86400;          // PriorityMaxAge
};

// Slurm's stock plugins without shares (stock_scheduler.cpp): multifactor's order (fair share
// and age, as of its last calculation), first fit, Slurm's passes and their bounds, no
// reservations.
class StockScheduler {
 public:
  StockScheduler(SimState& state, StockTuning tuning);
  PassOutcome pass(const PassBounds& bounds = {});

 private:
  void calculate_due();
  void accrue_usage(policy::Time to);
  void rank_accounts();
  [[nodiscard]] uint32_t priority_of(const policy::PendingJob& job) const;

  SimState& state_;
  StockTuning tuning_;
  std::vector<std::vector<int>> overlapping_;  // partition -> the partitions sharing a node
  // Fair share: each share (a Slurm account) as a leaf of the tree, all of equal shares.
  std::vector<double> usage_;            // [share]: decayed CPU-seconds
  std::vector<double> fs_factor_;        // [share], as of calculated_at_
  policy::Time calculated_at_ = 0;       // the last calculation (multifactor's decay thread)
  std::vector<policy::JobId> charging_;  // started, not yet charged up to their end
};

class FifoScheduler {
 public:
  explicit FifoScheduler(SimState& state) : state_(state) {}
  PassOutcome pass(const PassBounds& bounds = {});

 private:
  SimState& state_;
};

}  // namespace shareq::sim
