// What a try of a pending job found, and a memo of the tries that found nothing to do, shared by
// every pending job of the same kind. Internal to ShareqScheduler.
//
// A try (ShareqScheduler::try_job) reads the state (ledger, running jobs, nodes: unchanged while
// SimState::generation() is), now(), and of the job only: its share, its requests and their node
// shapes (its kind), whether ReclaimAfter has passed since its submission (`due`: reclaim_due in
// victims.cpp, may_preempt in the scheduler), and its --share-priority when InSharePreemption is on
// (in-share candidates are the lower ones). Nothing else of the job: not its id (best_fit reads
// only the shape), not its awaiting_victims or reserved_pool (the simulator sets neither). So two
// jobs with the same key tried at the same generation and now() find the same, and a job whose key
// already found nothing there is not tried: its own Wait is taken from the memo.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/workload.hpp"

namespace shareq::sim {

// What one try of a job looked at, to know how long its Wait holds.
struct Attempt {
  bool time_may_help = false;  // it waits on ReclaimAfter or ReclaimMinRuntime
  bool ages_matter = false;    // a within-quota job's reclaim read the running jobs' run times
};

struct TryKey {
  uint32_t kind = 0;  // share, requests and shapes (TryMemo interns them)
  bool due = false;   // ReclaimAfter has passed
  int priority = 0;   // --share-priority, or 0 when InSharePreemption is off
};

class TryMemo {
 public:
  explicit TryMemo(const Workload& workload);

  [[nodiscard]] TryKey key(policy::JobId id, bool due, int priority) const {
    return {kind_[id - 1], due, priority};
  }
  // The Attempt of a try with this key that found nothing to do at (generation, now), if any.
  const Attempt* find(const TryKey& key, uint64_t generation, policy::Time now);
  void remember(const TryKey& key, uint64_t generation, policy::Time now, const Attempt& attempt);

 private:
  // What the keys of one kind and due flag found at the state `stamp`, by priority.
  struct Slot {
    uint64_t stamp = 0;
    std::vector<std::pair<int, Attempt>> failed;
  };
  Slot& slot(const TryKey& key, uint64_t generation, policy::Time now);

  std::vector<uint32_t> kind_;  // [id - 1]
  std::vector<Slot> slots_;     // [kind * 2 + due]
  uint64_t generation_ = UINT64_MAX;
  policy::Time now_ = 0;
  uint64_t stamp_ = 0;  // bumped whenever (generation, now) changes: older slots are forgotten
};

}  // namespace shareq::sim
