// A warm pool: the nodes a finished job left warm for jobs with the same match key.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "warm/jobs.hpp"
#include "warm/key.hpp"

namespace shareq::warm {

// Available: warm, waiting for a matching job. InUse: a matching job runs on it. Reused: that
// job ended with its own keep-alive and the pool waits again. Expired: its time ran out (or the
// job using it ended without keep-alive). Terminated: ended early (admin, node down, its nodes
// taken by a non-matching job). Expired and Terminated are final.
enum class PoolStatus { Available, InUse, Reused, Expired, Terminated };

// What an admin writes in a warm node's Extra field to end its pool (`shareq pools end wp-N`);
// slurmctld's periodic pass ends the pool and clears the field.
inline constexpr std::string_view kEndPoolRequest = "shareq:end";

std::string_view status_name(PoolStatus status);  // "available", "in-use", "reused", ...
std::optional<PoolStatus> parse_status(std::string_view name);

struct WarmPool {
  PoolId id = 0;
  std::vector<MatchField> match;  // WarmPoolMatch when the pool was made; `key` uses these
  WarmPoolKey key;
  std::vector<std::string> nodes;  // sorted, each once
  std::string user;                // owner: the user and account of the job that made it
  uint32_t uid = 0;
  std::string account;
  std::string partition;
  std::string image_digest;  // the image the pool keeps pinned in the nodes' caches ("" = none)
  Time created = 0;
  Time expires_at = 0;  // created <= expires_at <= created + MaxWarmPoolLifetime
  PoolStatus status = PoolStatus::Available;
  JobId origin_job = 0;          // the job that made it
  std::vector<JobId> reused_by;  // jobs that claimed it, in order; while InUse the last one runs
  std::string warm_dir;          // node-local directory kept from job to job (see pool_warm_dir)
  std::string end_reason;        // why it ended, for Expired and Terminated; "" otherwise

  bool operator==(const WarmPool&) const = default;

  // Available or Reused: a matching job may claim it.
  [[nodiscard]] bool waiting() const {
    return status == PoolStatus::Available || status == PoolStatus::Reused;
  }
  // Not Expired or Terminated.
  [[nodiscard]] bool live() const { return waiting() || status == PoolStatus::InUse; }
  // The job running on it; nullopt unless InUse.
  [[nodiscard]] std::optional<JobId> current_job() const;
  // "wp-42": how logs, pins (holder) and the warm directory name it.
  [[nodiscard]] std::string name() const;
};

// "warm-17": the name of the node-local directory that the pool made by job 17 keeps from job to
// job on each of its nodes (the job environment's SHAREQ_WARM_NAME).
std::string node_warm_name(JobId origin_job);
// True for what node_warm_name makes: "warm-" and a job id, 1..4294967295.
bool is_node_warm_name(std::string_view name);

// ROOT/wp-ID. Precondition: root is an absolute path without a trailing '/'.
std::string pool_warm_dir(std::string_view root, PoolId id);

// The pool on one line for people: "wp-42 available until 1900 nodes=n1,n2 key=..."
std::string describe(const WarmPool& pool);

}  // namespace shareq::warm
