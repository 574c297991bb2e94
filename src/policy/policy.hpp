// The quota-share policy compiled from a Config: dense ids for families and shares, so the hot
// paths (ordering 100,000 pending jobs, choosing victims among 10,000 running ones) index arrays
// instead of hashing names. Built once per configuration; immutable afterwards.
//
// Ids are only meaningful for the Policy that gave them (a reconfiguration renumbers: see
// carry_over in usage.hpp). Share ids follow the sorted lower-case share names, then the
// implicit kUnlistedShare under UnlistedAccounts=borrow (quota 0 and lend limit 0 in every
// family, borrow unlimited); family ids the order of the Family= lines. Every function of the core
// that takes an id tolerates one out of range (it reads as a share with no quota / a family of
// capacity 0) and nothing throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config.hpp"

namespace shareq::policy {

using FamilyId = uint32_t;
using ShareId = uint32_t;
using JobId = uint32_t;
using Time = int64_t;  // seconds since the epoch; always an argument, never read from a clock

inline constexpr int64_t kUnlimited = INT64_MAX;

// One Share= line, resolved: limits in the family's unit (kUnlimited when unlimited).
struct QuotaRule {
  int64_t quota = 0;
  int64_t borrow_limit = kUnlimited;           // most the share may run beyond its quota
  int64_t lend_limit = kUnlimited;             // most of its unused quota others may borrow
  int64_t borrow_weight = kBorrowWeightScale;  // BorrowWeight, in thousandths (ordering.hpp)
};

struct FamilyInfo {
  std::string name;
  Unit unit = Unit::Node;
  int64_t capacity = 0;
  int64_t unassigned = 0;  // capacity - sum of quotas: idle capacity nobody owns, always lendable
  std::vector<FamilyId> fallback{};  // Fallback=, in order (fallback.hpp)
};

class Policy {
 public:
  // Precondition: config came from parse_config without errors (quotas fit capacities).
  static Policy compile(const Config& config);

  [[nodiscard]] size_t family_count() const { return families_.size(); }
  [[nodiscard]] size_t share_count() const { return share_names_.size(); }
  [[nodiscard]] const FamilyInfo& family(FamilyId f) const { return families_[f]; }
  [[nodiscard]] const std::string& share_name(ShareId s) const { return share_names_[s]; }

  // nullopt when the partition is in no family / the share (any case) is in no Share= line.
  [[nodiscard]] std::optional<FamilyId> family_of_partition(std::string_view partition) const;
  [[nodiscard]] std::optional<FamilyId> family_id(std::string_view name) const;
  [[nodiscard]] std::optional<ShareId> share_id(std::string_view name) const;

  // The implicit share of accounts under no share (UnlistedAccounts=borrow); nullopt otherwise.
  // Its jobs rank after every share's borrowers and never preempt (ordering, decision).
  [[nodiscard]] std::optional<ShareId> unlisted_share() const { return unlisted_share_; }
  [[nodiscard]] bool is_unlisted(ShareId s) const { return unlisted_share_ == s; }

  // The share's rule in the family; nullptr when the share has no quota there.
  [[nodiscard]] const QuotaRule* rule(ShareId s, FamilyId f) const;
  [[nodiscard]] int64_t quota(ShareId s, FamilyId f) const;  // 0 when no rule

  // Settings the decisions use (copied from the Config).
  int default_priority = 50;
  bool in_share_preemption = true;
  int64_t reclaim_min_runtime_s = 600;
  int64_t reclaim_after_s = 60;
  bool borrow_largest_first = false;  // BorrowOrder=largest (ordering.hpp)
  int64_t preempt_grace_time_s = 0;
  int64_t fallback_delay_s = 300;
  int max_fallback_requeues = 3;

 private:
  std::vector<FamilyInfo> families_;
  std::vector<std::string> share_names_;         // lower-case, index = ShareId
  std::vector<std::optional<QuotaRule>> rules_;  // [share * family_count + family]
  std::unordered_map<std::string, FamilyId> family_by_name_;
  std::unordered_map<std::string, FamilyId> family_by_partition_;
  std::unordered_map<std::string, ShareId> share_by_name_;  // lower-case keys
  std::optional<ShareId> unlisted_share_;
};

}  // namespace shareq::policy
