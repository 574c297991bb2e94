// Policy::compile: names to dense ids, limits resolved in each family's unit.
#include "policy/policy.hpp"

#include "policy/quota_math.hpp"

namespace shareq::policy {

namespace {

QuotaRule resolve_rule(const ShareQuota& line) {
  QuotaRule rule;
  rule.quota = std::max<int64_t>(line.quota, 0);
  rule.borrow_limit = std::max<int64_t>(line.borrow_limit.resolve(rule.quota), 0);
  rule.lend_limit = std::max<int64_t>(line.lend_limit.resolve(rule.quota), 0);
  rule.borrow_weight = std::max<int64_t>(line.borrow_weight, 1);
  return rule;
}

}  // namespace

Policy Policy::compile(const Config& config) {
  Policy policy;
  for (const Family& family : config.families) {
    const auto id = static_cast<FamilyId>(policy.families_.size());
    policy.families_.push_back(
        {family.name, family.unit, std::max<int64_t>(family.capacity, 0), 0});
    policy.family_by_name_.emplace(family.name, id);
    for (const std::string& partition : family.partitions) {
      policy.family_by_partition_.emplace(partition, id);
    }
  }
  for (const Family& family : config.families) {
    for (const std::string& name : family.fallback) {
      const auto to = policy.family_id(name);
      if (to && *to != policy.family_by_name_.at(family.name)) {
        policy.families_[policy.family_by_name_.at(family.name)].fallback.push_back(*to);
      }
    }
  }
  policy.share_names_ = config.share_names();
  for (size_t s = 0; s < policy.share_names_.size(); ++s) {
    policy.share_by_name_.emplace(policy.share_names_[s], static_cast<ShareId>(s));
  }
  if (config.unlisted_accounts == UnlistedAccounts::Borrow) {
    policy.unlisted_share_ = static_cast<ShareId>(policy.share_names_.size());
    policy.share_names_.emplace_back(kUnlistedShare);
    policy.share_by_name_.emplace(kUnlistedShare, *policy.unlisted_share_);
  }
  policy.rules_.assign(policy.share_names_.size() * policy.families_.size(), std::nullopt);
  if (policy.unlisted_share_) {
    // A borrower everywhere: no quota, nothing to lend, no limit but the idle capacity.
    for (size_t f = 0; f < policy.families_.size(); ++f) {
      policy.rules_[*policy.unlisted_share_ * policy.families_.size() + f] =
          QuotaRule{0, kUnlimited, 0};
    }
  }
  std::vector<int64_t> quota_sum(policy.families_.size(), 0);
  for (const ShareQuota& line : config.shares) {
    const auto f = policy.family_id(line.family);
    const auto s = policy.share_id(line.share);
    if (!f || !s) continue;  // parse_config guarantees both; be safe anyway
    policy.rules_[*s * policy.families_.size() + *f] = resolve_rule(line);
    quota_sum[*f] = math::add(quota_sum[*f], line.quota);
  }
  for (size_t f = 0; f < policy.families_.size(); ++f) {
    policy.families_[f].unassigned = math::sub(policy.families_[f].capacity, quota_sum[f]);
  }
  policy.default_priority = config.default_priority;
  policy.in_share_preemption = config.in_share_preemption;
  policy.reclaim_min_runtime_s = config.reclaim_min_runtime_s;
  policy.reclaim_after_s = config.reclaim_after_s;
  policy.borrow_largest_first = config.borrow_order == BorrowOrder::Largest;
  policy.preempt_grace_time_s = config.preempt_grace_time_s;
  policy.fallback_delay_s = config.fallback_delay_s;
  policy.max_fallback_requeues = config.max_fallback_requeues;
  return policy;
}

std::optional<FamilyId> Policy::family_of_partition(std::string_view partition) const {
  const auto it = family_by_partition_.find(std::string(partition));
  if (it == family_by_partition_.end()) return std::nullopt;
  return it->second;
}

std::optional<FamilyId> Policy::family_id(std::string_view name) const {
  const auto it = family_by_name_.find(std::string(name));
  if (it == family_by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<ShareId> Policy::share_id(std::string_view name) const {
  const auto it = share_by_name_.find(to_lower(name));
  if (it == share_by_name_.end()) return std::nullopt;
  return it->second;
}

const QuotaRule* Policy::rule(ShareId s, FamilyId f) const {
  if (s >= share_count() || f >= family_count()) return nullptr;
  const auto& rule = rules_[s * family_count() + f];
  return rule ? &*rule : nullptr;
}

int64_t Policy::quota(ShareId s, FamilyId f) const {
  const QuotaRule* r = rule(s, f);
  return r ? r->quota : 0;
}

}  // namespace shareq::policy
