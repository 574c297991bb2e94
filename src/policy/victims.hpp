// Which running jobs a pending job may preempt, and the smallest set it needs.
//
// Nothing is preempted when the job can start without it (admit(...).can_start): pick_victims
// then says possible with no victims. But fitting by the numbers is not fitting on a node (free
// GPUs may be spread over nodes): a job within its share's quota that no node has room for may
// still take back borrowed capacity where it fits (placement_candidates), so may_preempt allows
// reclaim candidates to a job within quota whether it fits by the numbers or not.
//
// Reclaim (the job is within its share's quota in the family: usage + amount <= quota):
//   only once the job has waited ReclaimAfter since its submission (or requeue), now -
//   submit_time >= reclaim_after_s; until then the reason is ReclaimAfter and nothing is a
//   candidate. A reclaim costs each victim its run so far and a requeue (Slurm holds a requeued
//   job for its credential's lifetime, cred_expire + 1 s, and KillWait to end it): when
//   borrowed jobs are short, capacity comes free sooner than that by itself, and the job,
//   ranked first, takes it (ski rental: wait up to what buying would cost, then buy).
//   it needs used(F) - freed + amount <= capacity(F). Candidates are jobs of OTHER shares that are
//   over their quota in that family and have run at least ReclaimMinRuntime
//   (now - start_time >= reclaim_min_runtime_s), and whose removal, after the victims already
//   picked, leaves their share at or above its quota. The next victim is always the first such
//   candidate by:
//          1. the share borrowing most at that point (re-evaluated after each pick),
//          2. lowest --share-priority, 3. least run time lost (latest start), 4. highest job id.
//   (Within a share this is first fit in the share's own order: a job too big for what its share
//   still borrows is passed over, not a stop. First fit can miss an exact combination, e.g. a
//   share borrowing 3 through jobs of 2 then 3 in its order; the job then waits.)
//   When reclaim cannot free enough but could if young jobs counted, the reason is
//   ReclaimMinRuntime; otherwise FamilyAtCapacity (e.g. the borrowers' jobs straddle their quota).
// In-share (InSharePreemption=yes; the job is NOT within quota, i.e. its share's quota cannot hold
//   it next to what the share runs, and it cannot start by borrowing): it needs
//   usage(S,F) - freed + amount <= quota(S,F) (and the family's capacity). Candidates are jobs of
//   the SAME share in that family with a strictly lower priority. ReclaimMinRuntime does not apply
//   (what runs inside a share's quota is the share's own business). Order: 1. lowest priority,
//   2. least run time lost (latest start), 3. highest job id. When it cannot free enough, the
//   reason is admit's (ShareAtBorrowLimit or NothingToBorrow).
// The two never compete: reclaim is for within-quota jobs, in-share for the others.
//
// "No more than needed", precisely: continue the order above until the candidates run out; call
// the resulting sequence c_0, c_1, ... (for in-share, simply the candidates sorted). The victims
// are the subset of that sequence which frees enough and, among all such subsets, has the
// smallest sum of 2^position (the colex-first one): a victim later in the order is only taken
// when no combination of earlier candidates frees enough. Computed as: take the shortest prefix
// that frees enough, then, from its last victim back to its first, drop every victim whose
// removal still leaves enough. The set is inclusion-minimal (dropping any victim leaves too
// little) and every subset of the sequence keeps every share at or above its quota. Same input,
// same victims, whatever the order of `running` (job ids are assumed unique).
//
// A preemptor never borrows: after its victims go and it starts, its share is within its quota
// (reclaim: it was within quota; in-share: the freed amount brings it back to its quota).
// No loops: a reclaimer's share is within quota after it starts, and reclaim only takes from
// shares over quota, so the displaced borrower can never take it back (and as a borrower it may
// not preempt at all); in-share victims have a strictly lower priority than the preemptor, so they
// cannot preempt it in turn.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "policy/admission.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"

namespace shareq::policy {

enum class PreemptKind { Reclaim, InShare };

struct Victim {
  JobId id = 0;
  PreemptKind kind = PreemptKind::Reclaim;
  bool operator==(const Victim&) const = default;
};

// The victims in words, for the tool: "job 12", "jobs 12, 13".
std::string victims_words(std::span<const Victim> victims);

struct VictimChoice {
  bool possible = false;                 // the victims free enough for the job
  std::vector<Victim> victims;           // in preemption order; no more than needed
  WaitReason reason = WaitReason::None;  // why not, when !possible
};

// The victims for `job` to start in `family` taking `amount`. `running` is every running job
// (those of other families are ignored) and must be what `ledger` was built from. Does not modify
// its inputs. O(n log n) in the running jobs of the family.
VictimChoice pick_victims(const Ledger& ledger, const PendingJob& job, FamilyId family,
                          int64_t amount, std::span<const RunningJob> running, Time now);

// Placement: `job` is within its share's quota in `family` and fits by the numbers, but cons_tres
// found no node with room for it. The reclaim order's whole sequence (the rules above:
// ReclaimMinRuntime, only shares over their quota, and any subset of it keeps every share at or
// above its quota), for cons_tres to preempt, among them and in this order, only jobs on the
// nodes it picks, up to the first prefix with which the job fits. Empty for a job not within
// quota.
std::vector<JobId> placement_candidates(const Ledger& ledger, const PendingJob& job,
                                        FamilyId family, int64_t amount,
                                        std::span<const RunningJob> running, Time now);

// Whether `candidate` is eligible at all (the per-pair rule above, without "no more than
// needed" and without the per-share list cut-off), for preempt_p_preemptable. Every victim that
// pick_victims returns satisfies it; the converse does not hold (may_preempt is the wider filter,
// pick_victims the decision).
bool may_preempt(const Ledger& ledger, const PendingJob& job, FamilyId family, int64_t amount,
                 const RunningJob& candidate, Time now);

// Whether anything can be preempted at all, cheaply: preempt/shareq's answer to Slurm's
// PREEMPT_DATA_ENABLED, asked before every search for candidates.
//
// The running side, worked out once per set of running jobs. A job is a reclaim candidate when
// its share borrows at least the job's amount in its family (ReclaimMinRuntime only delays it);
// with InSharePreemption, a job of a share with a quota in its family is an in-share candidate
// for any pending job of its share with a higher --share-priority.
struct PreemptionExposure {
  bool reclaimable = false;          // some running job is a reclaim candidate
  std::vector<int> lowest_in_share;  // [share]: lowest priority of its in-share candidates
};
inline constexpr int kNoCandidate = 1 << 30;  // lowest_in_share of a share with none
PreemptionExposure preemption_exposure(const Ledger& ledger, std::span<const RunningJob> running);

// Whether some pending job may preempt some running job (may_preempt holding for some pending
// job, amount and time): some job is reclaimable, or a share has a pending job above the lowest
// of its in-share candidates. `highest_pending[share]` is the highest --share-priority among the
// share's pending jobs (below 0: none); a share beyond the span may have any (so an empty span
// answers for every possible pending job). It may say true when no pending job could in fact
// preempt; false is exact for those pending jobs. O(shares).
bool any_preemptable(const PreemptionExposure& exposure, std::span<const int> highest_pending);

}  // namespace shareq::policy
