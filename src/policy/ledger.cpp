// Ledger: usage per share and family, with the borrowed and lendable totals kept incrementally.
#include "policy/ledger.hpp"

#include "policy/quota_math.hpp"

namespace shareq::policy {

Ledger::Ledger(const Policy& policy, std::span<const RunningJob> running,
               std::span<const HeldCapacity> held)
    : policy_(&policy),
      usage_(policy.share_count() * policy.family_count(), 0),
      used_(policy.family_count(), 0),
      borrowed_total_(policy.family_count(), 0),
      lent_(policy.family_count(), 0) {
  for (size_t f = 0; f < policy.family_count(); ++f) {
    for (size_t s = 0; s < policy.share_count(); ++s) {
      lent_[f] =
          math::add(lent_[f], lend_part(static_cast<ShareId>(s), static_cast<FamilyId>(f), 0));
    }
  }
  for (const RunningJob& job : running) add(job);
  for (const HeldCapacity& h : held) add(h);
}

bool Ledger::valid(ShareId s, FamilyId f) const {
  return s < policy_->share_count() && f < policy_->family_count();
}

int64_t Ledger::lend_part(ShareId s, FamilyId f, int64_t usage) const {
  const QuotaRule* rule = policy_->rule(s, f);
  if (rule == nullptr) return 0;
  return std::min(math::unused(usage, rule->quota), rule->lend_limit);
}

void Ledger::set_usage(ShareId s, FamilyId f, int64_t usage) {
  int64_t& slot = usage_[s * policy_->family_count() + f];
  const int64_t quota = policy_->quota(s, f);
  borrowed_total_[f] =
      math::add(math::sub(borrowed_total_[f], math::over(slot, quota)), math::over(usage, quota));
  lent_[f] = math::add(math::sub(lent_[f], lend_part(s, f, slot)), lend_part(s, f, usage));
  used_[f] = math::add(math::sub(used_[f], slot), usage);
  slot = usage;
}

void Ledger::change(ShareId s, FamilyId f, int64_t amount, bool adding) {
  if (!valid(s, f) || amount <= 0) return;
  set_usage(s, f, adding ? math::add(usage(s, f), amount) : math::sub(usage(s, f), amount));
}

void Ledger::add(const RunningJob& job) { change(job.share, job.family, job.amount, true); }

void Ledger::remove(const RunningJob& job) { change(job.share, job.family, job.amount, false); }

void Ledger::add(const HeldCapacity& held) { change(held.share, held.family, held.amount, true); }

void Ledger::remove(const HeldCapacity& held) {
  change(held.share, held.family, held.amount, false);
}

Ledger Ledger::without(const HeldCapacity& held) const {
  Ledger copy = *this;
  copy.remove(held);
  return copy;
}

int64_t Ledger::usage(ShareId s, FamilyId f) const {
  return valid(s, f) ? usage_[s * policy_->family_count() + f] : 0;
}

int64_t Ledger::used(FamilyId f) const { return f < used_.size() ? used_[f] : 0; }

int64_t Ledger::capacity(FamilyId f) const {
  return f < policy_->family_count() ? policy_->family(f).capacity : 0;
}

int64_t Ledger::idle(FamilyId f) const { return math::sub(capacity(f), used(f)); }

int64_t Ledger::borrowed(ShareId s, FamilyId f) const {
  return math::over(usage(s, f), policy_->quota(s, f));
}

int64_t Ledger::borrowed_total(FamilyId f) const {
  return f < borrowed_total_.size() ? borrowed_total_[f] : 0;
}

int64_t Ledger::lendable(FamilyId f) const {
  if (f >= lent_.size()) return 0;
  return math::add(policy_->family(f).unassigned, lent_[f]);
}

}  // namespace shareq::policy
