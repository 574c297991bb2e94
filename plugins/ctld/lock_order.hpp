// The order in which shareq's controller code takes its locks, and the mutex that checks it.
//
// Slurm's own locks come first: slurmctld calls the plugins with its config/job/node/partition
// locks (and assoc_mgr's) held, so shareq takes its locks inside Slurm's and never takes a Slurm
// lock, nor calls into Slurm code that takes one (queue_job_scheduler), while holding one of its
// own (assert_no_shareq_lock says so where it matters). Among shareq's locks a thread holding one
// takes only locks of a later rank, in this order (outer first):
//
//   PreemptorCache  preempt/shareq: the preemptor of Slurm's current scan
//   VictimOrder     preempt/shareq: the victim order of the last preemptor
//   WarmPools       the warm-pool registry (ControllerState::warm); under it shareq publishes
//                   the reserved pools (Jobs), reads the configuration (Config) and queues
//                   the state file (StateWriter)
//   Claims          reclaims in flight (ControllerState::claims); queues its state file
//   Jobs            the running-jobs registry and its snapshot (ControllerState::jobs)
//   RecalcSignal    priority/shareq's thread wake-up flags (the jobs-changed listener)
//   Ranks           priority/shareq's share ranking cache
//   QuotaTaken      priority/shareq's last within-quota ranking
//   PendingPriorities  each share's highest pending priority (ControllerState::pending)
//   RecentEnds      nodes of jobs that ended lately (ControllerState::recent_ends)
//   FailedRuns      runs that ended by NODE_FAIL or a requeue (ControllerState::failed_runs)
//   DigestBook      image digests and the questions for the store (ControllerState::digests)
//   Usage           decayed usage (ControllerState::usage)
//   ConfigCheck     shareq.conf's holder while it reads the file (one reader at a time)
//   Config          shareq.conf's holder, its published configuration (ControllerState::config)
//   StateWriter     the state files' queue (ControllerState::writer)
//   WaitReasons     refused jobs' wait words kept for 24.11 (ControllerState::wait_reasons)
//
// PreemptorCache, VictimOrder, RecalcSignal, Ranks and QuotaTaken guard what one plugin keeps for
// itself (caches keyed by the controller state's generations, the thread's wake-up); everything
// the plugins share is in ControllerState (controller_state.hpp).
//
// In checking builds (SHAREQ_LOCK_ORDER_CHECK, on with the tests; or without NDEBUG) every
// RankedMutex checks the order on each lock: taking a rank at or
// before one the thread already holds (an inversion, or the same lock twice) logs both ranks and
// aborts, so a test that exercises the path fails at once instead of deadlocking one day.
#pragma once

#include <cstdint>
#include <mutex>

#include "ctld_api.hpp"

namespace shareq::ctld {

enum class LockRank : uint8_t {
  PreemptorCache = 1,
  VictimOrder,
  WarmPools,
  Claims,
  Jobs,
  RecalcSignal,
  Ranks,
  QuotaTaken,
  PendingPriorities,
  RecentEnds,
  FailedRuns,
  DigestBook,
  Usage,
  ConfigCheck,
  Config,
  StateWriter,
  WaitReasons,
};

SHAREQ_CTLD_API const char* lock_rank_name(LockRank rank);

// Whether this build checks the lock order.
#if defined(SHAREQ_LOCK_ORDER_CHECK) || !defined(NDEBUG)
inline constexpr bool kCheckLockOrder = true;
#else
inline constexpr bool kCheckLockOrder = false;
#endif

// Records that this thread takes (acquired) or released a lock of `rank`; aborts on an order
// violation. Only called when kCheckLockOrder.
SHAREQ_CTLD_API void lock_order_acquired(LockRank rank);
SHAREQ_CTLD_API void lock_order_released(LockRank rank);
// Where a violation is reported before the abort (besides stderr): Slurm's log, once
// controller_state() exists.
using LockOrderReporter = void (*)(const char* line);
SHAREQ_CTLD_API void set_lock_order_reporter(LockOrderReporter reporter);
// Aborts (checking builds) when this thread holds any shareq lock: before taking a Slurm lock or
// calling Slurm code that may take one. `where` names the call site in the log line.
SHAREQ_CTLD_API void assert_no_shareq_lock(const char* where);

// A std::mutex with a rank in the order above (a Lockable: use it with std::lock_guard,
// std::unique_lock and std::condition_variable_any).
class RankedMutex {
 public:
  explicit constexpr RankedMutex(LockRank rank) : rank_(rank) {}
  RankedMutex(const RankedMutex&) = delete;
  RankedMutex& operator=(const RankedMutex&) = delete;

  void lock() {
    if constexpr (kCheckLockOrder) lock_order_acquired(rank_);
    mutex_.lock();
  }
  void unlock() {
    mutex_.unlock();
    if constexpr (kCheckLockOrder) lock_order_released(rank_);
  }
  [[nodiscard]] LockRank rank() const { return rank_; }

 private:
  std::mutex mutex_;
  const LockRank rank_;
};

using RankedLock = std::lock_guard<RankedMutex>;

}  // namespace shareq::ctld
