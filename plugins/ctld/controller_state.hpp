// The controller's state, in one owner: everything select, priority, preempt and job_submit
// share inside slurmctld (shareq.conf, the running jobs and their snapshot, reclaims in flight,
// warm pools, pending priorities, recently ended jobs' nodes, failed runs, kept wait words, image
// digests, decayed usage, the state files' writer). One ControllerState per slurmctld, made at
// first use (nothing happens at library load: slurmd and the clients load the select and priority
// plugins too).
//
// Each part has its own RankedMutex, taken in the order lock_order.hpp writes down (and checks
// in builds without NDEBUG); each part is read and written only by the file named beside it,
// through that file's functions (slurm_jobs.hpp, reclaim_claims.hpp, ...).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config_state.hpp"
#include "ctld_api.hpp"
#include "lock_order.hpp"
#include "policy/claims_format.hpp"
#include "slurm_jobs.hpp"
#include "state_writer.hpp"
#include "usage_store.hpp"
#include "warm/digest_book.hpp"
#include "warm/registry.hpp"

namespace shareq::ctld {

// config_state.cpp: the holder of the shareq.conf beside slurm.conf, made at first use.
struct ConfigPart {
  std::once_flag made;
  std::optional<ConfigHolder> holder;
};

// slurm_jobs.cpp: one running allocation, copied out of its job record.
struct RunningAllocation {
  std::string account;
  std::string partition;
  uint64_t nodes = 0;
  uint64_t gpus = 0;
  std::string tag;  // job_submit/shareq's tag (the AdminComment's first word): its priority
  int64_t start_time = 0;
};

// slurm_jobs.cpp: the running allocations, the reserved warm pools, and their snapshot.
struct RunningJobsPart {
  static constexpr int kGpuPosUnknown = -2;
  RankedMutex mutex{LockRank::Jobs};  // guards registry, reserved and snapshot
  std::map<uint32_t, RunningAllocation> registry;
  std::vector<ReservedPool> reserved;
  std::shared_ptr<const RunningSnapshot> snapshot;
  std::atomic<uint64_t> generation{1};
  std::atomic<JobsChangedListener> listener{nullptr};
  std::atomic<int> gpu_tres_pos{kGpuPosUnknown};
  std::atomic<bool> gpu_tres_refresh{false};  // request_tres_pos_refresh(): the next resolve asks
};

// reclaim_claims.cpp: the reclaims in flight and the decision snapshot they make.
struct ClaimsPart {
  RankedMutex mutex{LockRank::Claims};     // guards everything below
  bool loaded = false;                     // the state file was read (once per process)
  std::vector<policy::NamedClaim> claims;  // at most one per job
  uint64_t version = 1;                    // +1 for every change of claims
  // The cached decision snapshot and what it was built from.
  std::shared_ptr<const RunningSnapshot> base;
  uint64_t built_version = 0;
  std::shared_ptr<const RunningSnapshot> decision;
  // Decision snapshots get generations of their own, far from the registry's, so that a cache
  // keyed by generation (preempt/shareq's victim order) never mistakes one for another.
  uint64_t generation = uint64_t{1} << 62;
};

// warm_pools.cpp: the one WarmPoolRegistry.
struct WarmPoolsPart {
  RankedMutex mutex{LockRank::WarmPools};  // guards everything below but `waiting`
  std::optional<warm::WarmPoolRegistry> registry;
  uint64_t config_version = 0;
  std::map<warm::PoolId, int64_t> reserved_since;  // when each reserved pool began to wait
  // Pools waiting for a job (Available or Reused); -1 before the registry was loaded.
  std::atomic<int64_t> waiting{-1};
};

// pending_priorities.cpp: each share's highest --share-priority among its pending jobs.
struct PendingPrioritiesPart {
  RankedMutex mutex{LockRank::PendingPriorities};
  uint64_t config_version = 0;
  // Replaced, never changed in place: readers keep the copy they got.
  std::shared_ptr<const std::vector<int>> highest;
};

// select/recent_ends.cpp: the nodes of jobs that ended lately, oldest first.
struct RecentEndsPart {
  struct Ended {
    int64_t at = 0;
    std::vector<int> nodes;  // node indexes
  };
  RankedMutex mutex{LockRank::RecentEnds};
  std::vector<Ended> ended;
};

// failed_runs.cpp: runs that ended by NODE_FAIL or a requeue, until their failure is settled.
struct FailedRunsPart {
  struct Remembered {
    int64_t ended_at = 0;
    int64_t start = 0;
    bool node_fail = false;
    bool preempted = false;
    std::vector<std::string> nodes;
  };
  RankedMutex mutex{LockRank::FailedRuns};
  std::map<uint32_t, Remembered> ended;  // by job id
};

// wait_reasons.cpp: shareq's words of refused jobs, by job id, where the release drops them.
struct WaitReasonsPart {
  RankedMutex mutex{LockRank::WaitReasons};
  std::map<uint32_t, std::string> words;
};

// image_digests.cpp: the store's answers, and the questions for job_submit's thread.
struct DigestPart {
  RankedMutex mutex{LockRank::DigestBook};
  std::condition_variable_any ready;
  warm::DigestBook book;
  std::deque<std::string> queue;
  bool stopped = true;  // until job_submit's thread takes questions
};

class SHAREQ_CTLD_API ControllerState {
 public:
  ControllerState();
  ControllerState(const ControllerState&) = delete;
  ControllerState& operator=(const ControllerState&) = delete;

  StateWriter writer;  // first: destroyed last, after the parts that queue saves
  UsageStore usage;
  RunningJobsPart jobs;
  ClaimsPart claims;
  WarmPoolsPart warm;
  PendingPrioritiesPart pending;
  RecentEndsPart recent_ends;
  FailedRunsPart failed_runs;
  WaitReasonsPart wait_reasons;
  // Never destroyed: job_submit's thread may still wait on it when the process exits.
  DigestPart& digests;
};

// The one ControllerState of this process (made at the first call).
SHAREQ_CTLD_API ControllerState& controller_state();

// config_state.cpp's part, apart from the ControllerState and never destroyed: job_submit's
// thread, which slurmctld never stops on its way out of 24.11 (its fini runs only in builds with
// MEMORY_LEAK_DEBUG), reads shareq.conf for each question it asks, also after exit() destroyed
// the ControllerState.
SHAREQ_CTLD_API ConfigPart& config_part();

}  // namespace shareq::ctld
