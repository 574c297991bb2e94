#include "policy/describe.hpp"

#include <string>

#include "policy/quota_math.hpp"

namespace shareq::policy {

namespace {

std::string num(int64_t value) { return value == kUnlimited ? "UNLIMITED" : std::to_string(value); }

struct Names {
  std::string share;
  std::string family;
  std::string unit;
};

Names names_of(const Ledger& ledger, ShareId share, FamilyId family) {
  const Policy& policy = ledger.policy();
  Names names{"?", "?", "node"};
  if (share < policy.share_count()) names.share = policy.share_name(share);
  if (family < policy.family_count()) {
    names.family = policy.family(family).name;
    names.unit = std::string(unit_name(policy.family(family).unit));
  }
  return names;
}

std::string family_full(const Ledger& ledger, FamilyId family, const Names& n) {
  return "family " + n.family + " at capacity (" + num(ledger.used(family)) + "/" +
         num(ledger.capacity(family)) + " " + n.unit + ")";
}

std::string at_capacity(const Ledger& ledger, FamilyId family, const Names& n) {
  return family_full(ledger, family, n) + "; waiting to reclaim borrowed capacity";
}

std::string borrow_limit(const Ledger& ledger, ShareId share, FamilyId family, int64_t amount,
                         const Names& n) {
  const QuotaRule* rule = ledger.policy().rule(share, family);
  const int64_t limit = rule ? rule->borrow_limit : 0;
  const int64_t now = ledger.borrowed(share, family);
  const int64_t after =
      math::over(math::add(ledger.usage(share, family), amount), ledger.quota(share, family));
  std::string text = "share " + n.share + " at its borrow limit in " + n.family + " (borrowing " +
                     num(now) + "/" + num(limit) + " " + n.unit;
  if (after > limit && now < limit) text += ", job needs " + num(after);
  return text + ")";
}

std::string nothing_to_borrow(const Ledger& ledger, FamilyId family, const Names& n) {
  if (ledger.idle(family) == 0) {  // the plainer fact: no capacity is idle at all
    return "family " + n.family + " at capacity (" + num(ledger.used(family)) + "/" +
           num(ledger.capacity(family)) + " " + n.unit + "); nothing idle to borrow";
  }
  return "nothing to borrow in " + n.family + " (" + num(ledger.used(family)) + "/" +
         num(ledger.capacity(family)) + " " + n.unit + " used, " +
         num(ledger.borrowed_total(family)) + "/" + num(ledger.lendable(family)) +
         " lendable borrowed)";
}

std::string words(WaitReason reason, const Ledger& ledger, ShareId share, FamilyId family,
                  int64_t amount) {
  const Names n = names_of(ledger, share, family);
  switch (reason) {
    case WaitReason::None:
      return "";
    case WaitReason::NoQuotaInFamily:
      return "share " + n.share + " has no quota in family " + n.family;
    case WaitReason::FamilyAtCapacity:
      return at_capacity(ledger, family, n);
    case WaitReason::ShareAtBorrowLimit:
      return borrow_limit(ledger, share, family, amount, n);
    case WaitReason::NothingToBorrow:
      return nothing_to_borrow(ledger, family, n);
    case WaitReason::ReclaimMinRuntime:
      return "waiting for borrowed jobs in " + n.family +
             " to reach ReclaimMinRuntime=" + num(ledger.policy().reclaim_min_runtime_s) + "s";
    case WaitReason::ReclaimAfter:
      return family_full(ledger, family, n) +
             "; reclaims once it has waited ReclaimAfter=" + num(ledger.policy().reclaim_after_s) +
             "s";
    case WaitReason::LargerThanFamily:
      return "asks for " + num(amount) + " " + n.unit + ", more than family " + n.family +
             "'s capacity of " + num(ledger.capacity(family));
    case WaitReason::FallbackDelay:
      return "may start in fallback family " + n.family +
             " only after FallbackDelay=" + num(ledger.policy().fallback_delay_s) + "s";
  }
  return "";
}

}  // namespace

std::string describe(WaitReason reason, const Ledger& ledger, ShareId share, FamilyId family,
                     int64_t amount) {
  if (reason == WaitReason::None) return "";
  if (ledger.policy().is_unlisted(share)) {
    return "shareq: account in no share, runs only on idle capacity (UnlistedAccounts=borrow): " +
           words(reason, ledger, share, family, amount);
  }
  return "shareq: " + words(reason, ledger, share, family, amount);
}

}  // namespace shareq::policy
