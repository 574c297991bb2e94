// What the tool reads from slurmctld, as plain values: filled by slurm_client.cpp from libslurm's
// job and node records, built by hand in the unit tests. No Slurm header here.
#pragma once

#include <cstdint>
#include <string>
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
  std::string state_name;      // "PENDING", "RUNNING", ... as squeue prints it
  int64_t nodes = 0;           // running: allocated; pending: requested (at least 1)
  int64_t gpus = 0;            // gres/gpu: allocated (running) or requested (pending)
  std::string node_list;       // running: where it runs
  std::string admin_comment;   // job_submit/shareq's tag first ("shareq:share=..,priority=..")
  std::string system_comment;  // warm start, preemption notes
  std::string reason;          // squeue's reason column (%r)
  uint32_t priority = 0;       // Slurm's priority (what priority/shareq set); 0 = held
  int64_t submit_time = 0;
  int64_t start_time = 0;
};

struct NodeInfo {
  std::string name;
  std::string extra;  // scontrol show node's Extra: a warm pool's "shareq:wp-N,..." line
};

}  // namespace shareq::tool
