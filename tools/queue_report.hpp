// shareq queue: per family, the pending jobs in the order slurmctld's schedulers try them (Slurm's
// priority, which priority/shareq sets from policy/ordering.hpp; ties by job id), each with its
// share's tier (policy::prioritize_queue, criterion 1) and what the scheduler's own decide() does
// with it now: the first job that decide() lets start (or preempt) starts next
// (ClusterState::next_to_start); a job that waits says slurmctld's words for why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_state.hpp"

namespace shareq::tool {

inline constexpr size_t kDefaultQueueLimit = 100;
inline constexpr size_t kMaxQueueLimit = 1000000;

struct QueueFilter {
  std::optional<std::string> family;  // only this family (its name as in shareq.conf)
  std::optional<std::string> share;   // only this share's jobs (any case)
  size_t limit = kDefaultQueueLimit;  // at most this many jobs per family
};

// Criterion 1 of the ordering: the job fits in its share's quota (with the share's jobs ahead of
// it), would borrow, or belongs to the unlisted accounts' share (always a borrower, last).
enum class QueueTier { WithinQuota, Borrow, Unlisted };
std::string_view tier_name(QueueTier tier);  // "within_quota", "borrow", "unlisted"

// Criterion 1 of policy/ordering.hpp for every pending job (by job id), on the tool's ledger: the
// same prioritize_queue() that priority/shareq runs over every pending job, those whose priority
// an operator set (scontrol update Priority=) included (a held job takes nothing of its share's
// quota ahead of the others, as there). Decayed usage only orders shares, so none is needed.
// Whether a job is within its share's quota, whatever Slurm priority it has.
std::map<uint32_t, bool> within_quota_of(const ClusterState& state);

// What decide() does with the job now.
enum class QueueOutlook { StartsNext, Fits, Preempts, Waits };

struct QueueEntry {
  size_t position = 0;  // 1-based place among all the family's pending jobs
  uint32_t job = 0;
  std::string user;
  std::string share;
  QueueTier tier = QueueTier::Borrow;
  int share_priority = 0;       // --share-priority (DefaultPriority when none was given)
  uint32_t slurm_priority = 0;  // what the schedulers sort by
  int64_t nodes = 0;
  int64_t gpus = 0;
  int64_t amount = 0;                     // its request in the family's unit
  std::optional<int64_t> expected_start;  // Slurm's expected start (set by backfill), if any
  QueueOutlook outlook = QueueOutlook::Waits;
  std::string words;  // what it waits for, or what starting takes; one phrase
};

struct FamilyQueue {
  std::string family;
  Unit unit = Unit::Node;
  size_t pending_jobs = 0;  // in the family, before --share and --limit
  std::vector<QueueEntry> jobs;
};

// Every family in shareq.conf order (or only filter.family), each with its first filter.limit
// jobs of filter.share (all shares when unset). Decisions at `now`.
std::vector<FamilyQueue> queue_snapshot(const ClusterState& state, const QueueFilter& filter,
                                        int64_t now);

// "--limit: ..." or "--share: ..." naming the allowed values; nullopt when the value is good.
std::optional<std::string> limit_error(std::string_view text, size_t& limit);
std::optional<std::string> share_error(const policy::Policy& policy, const std::string& share);

// A heading and a table per family.
std::string format_queue(const std::vector<FamilyQueue>& families);
// {"now": ..., "families": [{"family", "unit", "pending_jobs", "jobs": [...]}]}.
std::string format_queue_json(const std::vector<FamilyQueue>& families, int64_t now);

}  // namespace shareq::tool
