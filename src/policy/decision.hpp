// One decision over one snapshot: what a pending job does now in one family. slurmctld's select
// plugin, the shareq tool (`why`, `status`) and `shareq sim` all call decide() on a
// ControllerView, so what a user is told is what the scheduler does.
//
// The rules, in order (each names the header that defines it):
//  0. The family is one of the job's fallback families whose FallbackDelay has not passed
//     (PendingJob::later): Wait (FallbackDelay), with what holds the job in its home family and
//     when it may fall back (fallback.hpp). A job that waits in its home family while a fallback
//     is not open yet says when it may fall back, after its reason.
//  1. The job asks for more than the family's capacity, or its share has no quota there: Wait,
//     whatever else (admission.hpp).
//  2. Its victims of an earlier reclaim are still ending (awaiting_victims): while one of them is
//     still running (victims_running) it waits "for the jobs it preempted to end"; then Start
//     with no preemption and nothing more, and if no node has room yet it waits with the same
//     words (it preempts nothing more meanwhile). Capacity is not checked again: the claim
//     already counts the job as running in its victims' place (reclaim_claims.hpp).
//  3. It matches a reserved warm pool (reserved_pool) of its own share and admit() lets it start
//  with the pool's
//     holding counted as its own: it is first tried on exactly that pool's nodes (on_pool). If
//     those nodes are not free the rest of the decision applies as if there were no pool.
//  4. Reserved pools of borrowing shares that a within-quota job would end before preempting any
//     job (warm_reclaim.hpp) are taken out of the ledger; they are in end_pools, ended only when
//     the job really starts.
//  5. admit() on that ledger lets it start: Start. A job within quota whose placement finds no
//     node with room may take back borrowed capacity where it fits: reclaim_to_fit lists the
//     candidates in order (victims.hpp, placement_candidates), unless a node of the family is
//     still completing a job that ended within the completing bound (then it waits for that
//     node: no_room says so, reclaim_to_fit is empty).
//  6. Else pick_victims(): possible with victims: Preempt (victims, and end_pools first); else
//     Wait with its reason (or admit's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "policy/admission.hpp"
#include "policy/describe.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "policy/victims.hpp"

namespace shareq::policy {

// A node of a family still completing a job that ended at `ended_at`: capacity that is free a
// moment later, not a reason to preempt. It counts until ended_at + the view's completing bound.
struct CompletingNode {
  FamilyId family = 0;
  Time ended_at = 0;
  bool operator==(const CompletingNode&) const = default;
};

// What the controller knows at one instant, as a view over storage its builder owns (cheap to
// make for every decision): slurmctld's snapshot of its job records in the plugins, libslurm's
// records in the tool, the simulator's own state in sim. Facts about the pending job itself
// (the reserved pool it matches, a reclaim of its own in flight) are in its PendingJob.
struct ControllerView {
  const Ledger& ledger;                 // from running and held
  std::span<const RunningJob> running;  // every running job shareq governs
  std::span<const HeldCapacity> held;   // reserved warm pools' holdings
  std::span<const CompletingNode> completing;
  Time completing_bound_s = 0;  // how long a completing node may still be waited for
};

enum class Verdict { Start, Preempt, Wait };

struct Decision {
  Verdict verdict = Verdict::Wait;
  std::optional<uint64_t> on_pool;       // try exactly this reserved pool's nodes first (rule 3)
  std::vector<uint64_t> end_pools;       // Start/Preempt: reserved pools to end when it starts
  std::vector<Victim> victims;           // Preempt: in order, no more than needed
  bool within_quota = false;             // Start: usage + amount <= quota
  std::vector<JobId> reclaim_to_fit;     // Start: candidates when no node has room (rule 5)
  std::string no_room;                   // Start: the reason to show when no node has room
  WaitReason reason = WaitReason::None;  // Wait (and Start's admit reason is None)
  std::string words;                     // Wait: describe()'s words for squeue
};

// The decision for `job` in `family` at `now`, taking the amount of the job's FamilyRequest there
// (a job with none waits: NoQuotaInFamily). Pure: reads only its arguments.
Decision decide(const ControllerView& view, const PendingJob& job, FamilyId family, Time now);

// The words a job waiting for the victims of its own reclaim shows.
inline constexpr const char* kAwaitingVictims = "waiting for the jobs it preempted to end";
// The words a within-quota job shows while a node of its family finishes cleaning up.
inline constexpr const char* kAwaitingCompletingNode =
    "waiting for a node to finish cleaning up after a job that ended";

}  // namespace shareq::policy
