// The simulator's state between events: jobs pending and running, the nodes, the ledger, the
// end-of-job and end-of-BeginTime event queues, the meter. The schedulers (shareq's passes, FIFO
// with EASY backfill) decide; this class acts (start, end, requeue) and keeps every figure
// consistent. Internal.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "sim/meter.hpp"
#include "sim/node_pool.hpp"
#include "sim/workload.hpp"

namespace shareq::sim {

enum class JobStatus { Future, Pending, Running, Done };

struct JobRun {
  JobStatus status = JobStatus::Future;
  policy::Time first_submit = 0;
  policy::Time start = -1, end = -1;
  int64_t preempted = 0;
  uint32_t epoch = 0;  // runs so far; an end event of an older run is stale
  int request = -1;    // the request (family) it runs in
  std::vector<int> nodes;
  size_t slot = 0;  // its index in pending() or running()
};

struct EndEvent {
  policy::Time time = 0;
  policy::JobId job = 0;
  uint32_t epoch = 0;
  bool operator>(const EndEvent& o) const { return time != o.time ? time > o.time : job > o.job; }
};

class SimState {
 public:
  // requeue_hold_s: how long a requeued job waits before it may start again (Slurm gives it a
  // BeginTime of AuthInfo's cred_expire + 1 s); 0: it may start at once.
  SimState(const Workload& workload, const policy::Policy& policy, policy::Time requeue_hold_s = 0);

  [[nodiscard]] policy::Time now() const { return now_; }
  [[nodiscard]] const Workload& workload() const { return workload_; }
  [[nodiscard]] const policy::Policy& policy() const { return policy_; }
  [[nodiscard]] const SimJob& job(policy::JobId id) const { return workload_.jobs[id - 1]; }
  [[nodiscard]] const JobRun& run(policy::JobId id) const { return runs_[id - 1]; }
  [[nodiscard]] const std::vector<policy::PendingJob>& pending() const { return pending_; }
  // Whether the pending job may start now: false while a requeued job waits out its BeginTime
  // (Slurm leaves such a job out of every pass).
  [[nodiscard]] bool eligible(policy::JobId id) const {
    return pending_[runs_[id - 1].slot].eligible;
  }
  [[nodiscard]] const std::vector<policy::RunningJob>& running() const { return running_; }
  [[nodiscard]] const policy::Ledger& ledger() const { return ledger_; }
  [[nodiscard]] const NodePool& pool() const { return pool_; }
  [[nodiscard]] NodePool& pool() { return pool_; }
  [[nodiscard]] const Meter& meter() const { return meter_; }
  // Bumped whenever a job starts, ends or is requeued: the ledger, the running jobs and the
  // nodes' free GPUs are unchanged while it is (the simulator holds no capacity otherwise).
  [[nodiscard]] uint64_t generation() const { return generation_; }
  // Bumped whenever a job joins or leaves pending(), or becomes eligible (or generation() changes).
  [[nodiscard]] uint64_t queue_generation() const { return queue_generation_; }

  // Moves time to the next event; false when nothing is left to happen. `pass_at` is the time of
  // the next periodic pass (INT64_MAX: none).
  bool advance(policy::Time pass_at);
  // Ends, submissions and BeginTimes reached at now(); true when any happened.
  bool apply_events();

  // Acting (preconditions: the job is pending / running, the nodes have room).
  void start(policy::JobId id, int request, const std::vector<int>& nodes);
  void requeue(policy::JobId id);  // preempted: back to pending, its run lost
  void finish_metering();          // integrates every figure up to now()

  // Nodes for request `request` of the job now, by best fit; nullopt when none has room.
  [[nodiscard]] std::optional<std::vector<int>> best_fit(policy::JobId id, int request) const;
  // The same by first fit in slurm.conf order (cons_tres without select/shareq's packing).
  [[nodiscard]] std::optional<std::vector<int>> first_fit(policy::JobId id, int request) const;

 private:
  void submit(policy::JobId id, bool first);
  void end(policy::JobId id);
  void stop_running(policy::JobId id);
  void remove_pending(policy::JobId id);

  const Workload& workload_;
  const policy::Policy& policy_;
  NodePool pool_;
  policy::Ledger ledger_;
  Meter meter_;
  std::vector<JobRun> runs_;
  std::vector<policy::PendingJob> pending_;
  std::vector<policy::RunningJob> running_;
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends_;
  // Requeued jobs' BeginTimes, as (time, job, epoch of the run that was preempted).
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> begins_;
  policy::Time requeue_hold_s_ = 0;
  size_t next_submit_ = 0;
  policy::Time now_ = 0;
  uint64_t generation_ = 0;
  uint64_t queue_generation_ = 0;
};

}  // namespace shareq::sim
