// admit: may a job start now without preempting anything?
#include "policy/admission.hpp"

#include "policy/quota_math.hpp"

namespace shareq::policy {

namespace {

bool fits_capacity(const Ledger& ledger, FamilyId family, int64_t amount) {
  return math::add(ledger.used(family), amount) <= ledger.capacity(family);
}

// Why a job that would borrow cannot start (None when it can). The lendable total is taken after
// the start: the borrower's own unused quota is then 0, so it cannot lend to itself.
WaitReason borrow_reason(const Ledger& ledger, ShareId share, FamilyId family, int64_t amount,
                         const QuotaRule& rule) {
  const int64_t usage = ledger.usage(share, family);
  const int64_t borrow_after = math::over(math::add(usage, amount), rule.quota);
  if (borrow_after > rule.borrow_limit) return WaitReason::ShareAtBorrowLimit;
  if (!fits_capacity(ledger, family, amount)) return WaitReason::NothingToBorrow;
  const int64_t borrowed_after = math::add(
      math::sub(ledger.borrowed_total(family), ledger.borrowed(share, family)), borrow_after);
  const int64_t own_lend = std::min(math::unused(usage, rule.quota), rule.lend_limit);
  const int64_t lendable_after = math::sub(ledger.lendable(family), own_lend);
  return borrowed_after <= lendable_after ? WaitReason::None : WaitReason::NothingToBorrow;
}

}  // namespace

Admission admit(const Ledger& ledger, ShareId share, FamilyId family, int64_t amount) {
  Admission admission;
  const QuotaRule* rule = ledger.policy().rule(share, family);
  if (rule == nullptr) {
    admission.reason = WaitReason::NoQuotaInFamily;
    return admission;
  }
  amount = std::max<int64_t>(amount, 0);
  if (amount > ledger.capacity(family)) {
    admission.reason = WaitReason::LargerThanFamily;
    return admission;
  }
  admission.within_quota = math::add(ledger.usage(share, family), amount) <= rule->quota;
  if (admission.within_quota) {
    admission.reason =
        fits_capacity(ledger, family, amount) ? WaitReason::None : WaitReason::FamilyAtCapacity;
  } else {
    admission.reason = borrow_reason(ledger, share, family, amount, *rule);
  }
  admission.can_start = admission.reason == WaitReason::None;
  return admission;
}

}  // namespace shareq::policy
