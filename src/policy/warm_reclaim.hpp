// Reserved warm pools that a job within its share's quota ends before it preempts any job.
//
// A waiting pool in WarmPoolMode=reserve holds nodes for its owner's next matching job and counts
// as the owner's usage (HeldCapacity). When that makes the owner borrow, the pool is borrowed
// capacity like a borrowed job, and the cheapest to take back: ending it loses no work. So a job
// that reclaims (it is within its share's quota in the family and does not fit) ends pools
// first, under reclaim's rules (victims.hpp): only pools of OTHER shares that are over their
// quota in that family, never taking a share below its quota; the share borrowing most first
// (re-evaluated after each pick), then the larger pool, then the lower pool id. No more than
// the shortfall needs: when the pools free enough, every pool whose removal still leaves enough
// is dropped, from the last picked back to the first. When they free less, all picked pools are
// kept and running jobs are reclaimed for the rest (pick_victims on the ledger without them).
// Reclaim's ReclaimMinRuntime does not apply: a pool runs no work.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/ledger.hpp"

namespace shareq::policy {

// The ids (HeldCapacity::pool) of the pools `job` ends to start in `family` taking `amount`, in
// the order picked; empty when the job is not within quota, fits without them, or no pool may
// be ended. Does not modify its inputs.
std::vector<uint64_t> pools_to_end(const Ledger& ledger, const PendingJob& job, FamilyId family,
                                   int64_t amount, std::span<const HeldCapacity> held);

}  // namespace shareq::policy
