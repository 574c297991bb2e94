// What the tool reads from slurmctld, as plain values: filled by slurm_client.cpp from libslurm's
// job and node records, built by hand in the unit tests. No Slurm header here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shareq::tool {

enum class JobState { Pending, Running, Suspended, Other };

struct JobInfo {
  uint32_t id = 0;
  std::string user;
  std::string account;
  // Running: the partition it runs in; pending: its partitions in the user's order.
  std::vector<std::string> partitions;
  JobState state = JobState::Other;
  bool completing = false;              // ended, its nodes still COMPLETING (state Other)
  std::string state_name;               // "PENDING", "RUNNING", ... as squeue prints it
  int64_t nodes = 0;                    // running: allocated; pending: requested (at least 1)
  int64_t gpus = 0;                     // gres/gpu: allocated (running) or requested (pending)
  std::string node_list;                // running: where it runs; completing: where it ran
  std::vector<std::string> node_names;  // node_list, one name each
  std::string admin_comment;   // job_submit/shareq's tag first ("shareq:share=..,priority=..")
  std::string system_comment;  // warm start, preemption notes
  std::string reason;          // squeue's reason column (%r)
  uint32_t priority = 0;       // Slurm's priority (what priority/shareq set); 0 = held
  int64_t submit_time = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;       // completing: when it ended
  int64_t preempt_time = 0;   // when Slurm signalled its preemption (0: never)
  int64_t nice = 0;           // Slurm's nice value (--nice), its offset taken off
  int64_t eligible_time = 0;  // pending: when it became eligible (0: not yet known)
  int64_t restarts = 0;       // Slurm's restart count (requeues)
};

struct NodeInfo {
  NodeInfo() = default;
  NodeInfo(std::string name_, std::string extra_, std::vector<std::string> partitions_ = {},
           int64_t gpus_ = 0, bool completing_ = false)
      : name(std::move(name_)),
        extra(std::move(extra_)),
        partitions(std::move(partitions_)),
        gpus(gpus_),
        completing(completing_) {}

  std::string name;
  std::string extra;  // scontrol show node's Extra: a warm pool's "shareq:wp-N,..." line
  std::vector<std::string> partitions;  // every partition the node is in
  int64_t gpus = 0;                     // configured gres/gpu (its TRES)
  bool completing = false;              // COMPLETING: a job's processes are still ending
};

// Everything the tool's view of slurmctld is built from (ClusterState), read at one time.
struct ClusterData {
  std::vector<JobInfo> jobs;
  std::vector<NodeInfo> nodes;
  // slurmctld's KillWait + 2 x MessageTimeout + 10 s: how long a completing node is waited for
  // (policy::job_end_allowance_s).
  int64_t job_end_allowance_s = 0;
  int64_t now = 0;  // when it was read, seconds since the epoch
};

}  // namespace shareq::tool
