// May a job of share S start now in family F, taking `amount`, without preempting anything?
//
// Within quota (usage(S,F) + amount <= Quota(S,F)): it starts when used(F) + amount <= capacity.
// Otherwise it would borrow usage + amount - quota, and starts when all of these hold:
//   borrowed after the start <= BorrowLimit (ShareAtBorrowLimit otherwise),
//   used(F) + amount <= capacity (NothingToBorrow otherwise),
//   borrowed_total(F) after the start <= lendable(F) after the start, where the borrower's own
//   unused quota no longer counts (NothingToBorrow otherwise).
// That is work-conserving: a borrower is refused only by capacity or a limit. A share with no
// Share= line in F (or an unknown share or family) gets NoQuotaInFamily; a request above the
// family's capacity LargerThanFamily. Negative amounts count as 0.
// admit sees no running jobs: a within-quota job that does not fit gets FamilyAtCapacity, and
// pick_victims refines it (ReclaimMinRuntime).
#pragma once

#include <string>

#include "policy/ledger.hpp"

namespace shareq::policy {

enum class WaitReason {
  None,
  NoQuotaInFamily,     // the share has no Share= line for this family
  FamilyAtCapacity,    // within quota, but the family is full: reclaim may free room
  ShareAtBorrowLimit,  // would borrow beyond BorrowLimit
  NothingToBorrow,     // would borrow, but no idle capacity that LendLimits allow
  ReclaimMinRuntime,   // within quota; every borrowed job ran less than ReclaimMinRuntime
  ReclaimAfter,        // within quota; waited less than ReclaimAfter for capacity to come free
  LargerThanFamily,    // asks for more than the family's capacity: can never run
  FallbackDelay,       // a fallback family whose FallbackDelay has not passed (fallback.hpp)
};

struct Admission {
  bool can_start = false;                // fits now, nothing preempted
  bool within_quota = false;             // usage + amount <= quota
  WaitReason reason = WaitReason::None;  // None exactly when can_start
};

Admission admit(const Ledger& ledger, ShareId share, FamilyId family, int64_t amount);

}  // namespace shareq::policy
