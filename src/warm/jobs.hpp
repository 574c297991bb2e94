// The jobs the warm-pool policy decides about, as plain values the Slurm shims fill in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shareq::warm {

using JobId = uint32_t;
using PoolId = uint64_t;
using Time = int64_t;  // seconds since the epoch; always an argument, never read from a clock

// Why a job ended. Only a job that ended by itself (its program exited, with success or not)
// makes or continues a warm pool: a node failure, a cancel, a preemption or a time limit ends
// the job from outside, and its nodes are not trusted to be in a state worth keeping.
enum class EndCause { Completed, Failed, TimeLimit, UserCancel, AdminCancel, NodeFail, Preempted };

// True for Completed and Failed.
bool keeps_warm(EndCause cause);

// A job that just ended on `nodes`.
struct EndedJob {
  JobId id = 0;
  std::string user;  // user name
  uint32_t uid = 0;
  std::string account;             // the job's account (its share), lower-case
  std::string partition;           // the partition it ran in
  std::string image_digest;        // 64 lower-case hex of its image; "" for a job without --image
  std::vector<std::string> nodes;  // the nodes it ran on (its node count is nodes.size())
  int64_t keep_alive_s = 0;        // --keep-alive
};

// A job waiting to start, as warm-pool matching sees it (policy::PendingJob is the same job as
// the quota policy sees it). Its image is the digest resolved at submission (or pinned by the
// user).
struct JobToStart {
  JobId id = 0;
  std::string user;
  uint32_t uid = 0;
  std::string account;                  // lower-case
  std::vector<std::string> partitions;  // in the user's order (-p p5,p4)
  std::string image_digest;             // as in EndedJob
  uint32_t node_count = 0;              // -N
};

}  // namespace shareq::warm
