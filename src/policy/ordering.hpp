// The order of pending jobs, as Slurm priorities (higher runs first).
//
// Criteria, in order:
//  1. jobs within their share's quota (in their best family) before jobs that would borrow.
//     A job is within quota when the share's usage, plus what the share's eligible pending jobs
//     ahead of it in the share's own order (3 to 5 below) already take of the quota, plus the
//     job's amount, fit in the quota, and none of those jobs borrows: a burst of one share puts
//     in the first tier only the jobs its quota holds, in the share's order, up to the first job
//     that does not fit what is left. That job borrows, and so does every job of the share behind
//     it (in the families it asks for): a smaller, younger or lower-priority job never passes it
//     into the first tier. (Passing over it, first fit, was the rule until 2026-12-04: it kept a
//     share's large jobs behind its own small ones, and so for last, when only the large are left
//     and the free GPUs are spread too thin for them; docs/benchmarks.md.) A job larger than the
//     share's whole quota can never be within it: it is passed over and ends nothing;
//  2. among within-quota jobs, the share furthest below its quota first (smallest usage/quota,
//     usage as held now, without the job; a quota of 0 counts as fully used);
//     among borrowers, the share with the least decayed usage relative to its quota and its
//     BorrowWeight first (decayed usage / (quota x BorrowWeight), i.e. seconds at its full quota,
//     over the weight: a share of weight 4 borrows ahead of one of weight 1 until it has used
//     four times as much of its quota; AWS Batch's share weight factor, inverted); shares with
//     a quota of 0 after all others, by decayed usage;
//     with BorrowOrder=largest, borrowers go by the job's size class first (the bit length of
//     its amount in the family's unit: 1, 2-3, 4-7, 8-15, ... up to class 15, 16384 and more),
//     largest first, and then by the share's standing as above: first fit decreasing, so a job
//     that needs a whole node takes one as it comes free instead of small jobs of a share that
//     used less scattering over it. Idle capacity then goes by size, not by fair share; the
//     quota tier is unchanged, and the implicit share of unlisted accounts (size class 0) stays
//     after every share. A share's own order (3 and 4) stands: a borrower ranks with at least
//     the size class of every eligible job of its share in the family that --share-priority or
//     nice put behind it, so only its jobs of equal priority and nice go by size;
//  3. inside a share, higher --share-priority first;
//  4. then the lower nice value first (`--nice`, `scontrol update Nice=`: a user steps back their
//     own job; a negative nice, which Slurm allows only operators, moves it ahead);
//  5. then older first (Slurm breaks equal priorities by submit time, then job id).
// The implicit share of unlisted accounts (Policy::unlisted_share) has no quota, so its jobs are
// always borrowers; among borrowers it ranks after every share.
//
// A job's best family is the one of its requests that ranks it highest by 1 and 2; ties go to the
// first in the user's order. A job with requests in several families also gets its priority in
// each (in_family): Slurm queues it once per partition, and in each family it ranks as that
// family's own jobs of equal standing (fallback.hpp); the best one is its priority. Requests for a
// family where the share has no quota, or larger than the family's capacity, are skipped; a job
// with no usable request gets tier 0 and share rank 0.
//
// Packing into Slurm's 32-bit priority (never 0, which Slurm reads as held; below 2^31):
//   priority = tier + size_class * 2^26 + share_rank * 262144 + job_priority * 2600 + nice_level
//   tier         = 2^30 when within quota, else 0
//   size_class   = 1..15 for a borrower under BorrowOrder=largest (above), else 0
//   share_rank   = 1..2^12-1, dense (equal standing, equal rank), higher first; 0 = unranked
//                  (a site with more than 4095 (share, family) pairs ties its lowest ones; under
//                  BorrowOrder=largest a borrower's rank is 1..255, and more than 255 pairs tie
//                  their lowest ones among borrowers)
//   job_priority = --share-priority clamped to 0..99
//   nice_level   = 1300 - nice for a nice of -1200..1200 (exact: `--nice=1000` lowers the
//                  priority by 1000, as under Slurm's own priority plugins); beyond that, 1..99
//                  (positive) or 2501..2599 (negative) in steps of about a quarter of a doubling:
//                  order kept, equal levels for nice values close together
// Ranks are per (share, family) pair and computed once per call: O(pairs log pairs); then each
// job costs O(its requests).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/ledger.hpp"

namespace shareq::policy {

// Decayed usage per (share, family), in the family's unit times seconds; index
// [share * family_count + family]. Empty means no history (all zero); so does a vector of any
// other size (e.g. kept from an older configuration).
using DecayedUsage = std::vector<double>;

// The factors behind one job's priority, for sprio.
struct PriorityFactors {
  uint32_t priority = 0;  // what Slurm sees (formula above); always >= 1
  bool within_quota = false;
  uint32_t tier = 0;          // the within-quota bit's weight in `priority` (0 when borrowing)
  uint32_t size_class = 0;    // BorrowOrder=largest: a borrower's size class (1..15), else 0
  uint32_t share_rank = 0;    // the share's standing (criterion 2) as a number, higher first
  uint32_t job_priority = 0;  // --share-priority's part (0..99)
  int64_t nice = 0;           // the job's nice value, as given
  uint32_t nice_level = 0;    // nice's part of `priority` (1..2599, 1300 for nice 0)
  // The job's priority in each family it asks for, when it asks for more than one.
  std::vector<std::pair<FamilyId, uint32_t>> in_family = {};
};

inline constexpr uint32_t kWithinQuotaTier = uint32_t{1} << 30;
inline constexpr uint32_t kNiceCenter = 1300;  // nice_level of nice 0
inline constexpr uint32_t kJobPriorityWeight = 2600;
inline constexpr uint32_t kShareRankWeight = uint32_t{1} << 18;
inline constexpr uint32_t kMaxShareRank = (uint32_t{1} << 12) - 1;
inline constexpr uint32_t kSizeClassWeight = uint32_t{1} << 26;
inline constexpr uint32_t kMaxSizeClass = 15;
inline constexpr uint32_t kMaxBorrowRankBySize = (kSizeClassWeight / kShareRankWeight) - 1;  // 255

// A borrower's size class under BorrowOrder=largest: the bit length of `amount` (1 for 1, 2 for
// 2-3, 3 for 4-7, ...), at most kMaxSizeClass; 1 for an amount below 1.
uint32_t size_class(int64_t amount);

// nice_level (formula above): non-increasing in `nice`, 1..2599.
uint32_t nice_level(int64_t nice);

// Every (share, family) pair's standing, for both tiers; computed once, used for many jobs.
struct ShareRanks {
  size_t family_count = 0;
  std::vector<uint32_t> within;  // [share * family_count + family]; 0 where the share has no quota
  std::vector<uint32_t> borrow;  // the same for borrowers
};

ShareRanks rank_shares(const Ledger& ledger, const DecayedUsage& usage);

// What the share's pending jobs ahead of a job already take of its quota, per (share, family):
// [share * family_count + family], in the family's unit. Empty (or of another size) = nothing.
using QuotaAhead = std::vector<int64_t>;

// One job's priority from precomputed ranks (the ledger must be the one they came from), its
// share's jobs ahead of it taking `ahead` of the quota.
PriorityFactors prioritize(const ShareRanks& ranks, const Ledger& ledger, const PendingJob& job,
                           const QuotaAhead& ahead = {});

// A ranked queue: each job's factors (same order as the input) and what the eligible jobs take of
// each share's quota in all, for a job submitted after them: the within-quota jobs' amounts, or
// the whole quota once one of the share's jobs borrows (criterion 1).
struct RankedQueue {
  std::vector<PriorityFactors> factors;
  QuotaAhead taken;
};

// Priorities for `pending`, criterion 1 counting each share's jobs ahead. Deterministic, whatever
// the order of the input; O(n log n + pairs log pairs).
RankedQueue prioritize_queue(const ShareRanks& ranks, const Ledger& ledger,
                             std::span<const PendingJob> pending);

// prioritize_queue(...).factors, ranks computed here.
std::vector<PriorityFactors> prioritize(const Ledger& ledger, const DecayedUsage& usage,
                                        std::span<const PendingJob> pending);

// One job with nothing ahead of it (the queue's first job of its share).
PriorityFactors prioritize_one(const Ledger& ledger, const DecayedUsage& usage,
                               const PendingJob& job);

// The job's priority in one of its partitions. Slurm queues a job in partitions of several
// families once per partition (and, from 24.11, once per partition and QOS), at that partition's
// slot of its per-partition priorities: there it gets its priority in that partition's family
// (`factors.in_family`, at least 1). A partition of a family where it cannot run now (a fallback
// family before its FallbackDelay, `pending.later`; a family where its share has no quota, absent
// from `in_family` while others are there) gets 1: tested last there, and below
// bf_min_prio_reserve, so it holds back no job of that partition. A partition in no family, or
// any partition of a job with no per-family priorities, gets `priority`, the job's own.
uint32_t partition_priority(const Policy& policy, std::string_view partition,
                            const PendingJob& pending, const PriorityFactors& factors,
                            uint32_t priority);

}  // namespace shareq::policy
