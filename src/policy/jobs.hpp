// The jobs the policy decides about, as plain values (the Slurm shims fill them from job records).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "policy/policy.hpp"

namespace shareq::policy {

// A job holding resources in a family. `amount` is in the family's unit (nodes or GPUs).
struct RunningJob {
  JobId id = 0;
  ShareId share = 0;
  FamilyId family = 0;
  int64_t amount = 0;
  int priority = 0;     // --share-priority, 0..99
  Time start_time = 0;  // when it last started (after a requeue: the new start)
  bool operator==(const RunningJob&) const = default;
};

// Capacity a share holds without running a job: the nodes of a warm pool waiting for the share's
// next matching job under WarmPoolMode=reserve (nobody else may use them). It counts as the
// share's usage in the Ledger exactly like a running job of that amount, but it is no job: it is
// never a preemption victim and never in the running list. `pool` names it for logs and tests.
struct HeldCapacity {
  uint64_t pool = 0;
  ShareId share = 0;
  FamilyId family = 0;
  int64_t amount = 0;  // in the family's unit (nodes, or the nodes' GPUs)
  bool operator==(const HeldCapacity&) const = default;
};

// What a pending job asks of one family it may run in.
struct FamilyRequest {
  FamilyId family = 0;
  int64_t amount = 0;
  bool operator==(const FamilyRequest&) const = default;
};

// A request in a fallback family that is not open yet (fallback.hpp).
struct LaterRequest {
  FamilyId family = 0;
  int64_t amount = 0;
  Time opens_at = 0;
  bool operator==(const LaterRequest&) const = default;
};

struct PendingJob {
  JobId id = 0;
  ShareId share = 0;
  int priority = 0;
  Time submit_time = 0;
  std::vector<FamilyRequest> requests;  // the job's partitions in the user's order, in families
  // It may start now (not held, its BeginTime passed). Only such a job takes its share's quota
  // ahead of the share's later jobs when the queue is ranked (ordering.hpp).
  bool eligible = true;
  // WarmPoolMode=reserve: the waiting pool (HeldCapacity::pool) whose key this job matches.
  std::optional<uint64_t> reserved_pool = std::nullopt;
  // It preempted victims that are still ending (a reclaim in flight, reclaim_claims.hpp).
  bool awaiting_victims = false;
  // With awaiting_victims: one of those victims is still listed as running (in PreemptGraceTime,
  // or back as RUNNING after a slurmctld crash lost its preemption), so it still holds its share
  // of the family's capacity.
  bool victims_running = false;
  // Slurm's nice value (--nice, scontrol update Nice=): inside a share and --share-priority, a
  // higher one goes later (ordering.hpp).
  int64_t nice = 0;
  // The family it was submitted to, when it may fall back to others (fallback.hpp), and its
  // fallback requests that are not open yet (not in `requests`).
  std::optional<FamilyId> home = std::nullopt;
  std::vector<LaterRequest> later = {};
  bool operator==(const PendingJob&) const = default;
};

}  // namespace shareq::policy
