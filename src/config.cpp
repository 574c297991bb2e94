// Config lookups and plain helpers; the parser is in config_parser.cpp.
#include <algorithm>
#include <limits>

#include "config.hpp"
#include "text.hpp"

namespace shareq {

std::string_view unit_name(Unit unit) { return unit == Unit::Gpu ? "gres/gpu" : "node"; }

int64_t Limit::resolve(int64_t quota) const {
  switch (kind) {
    case Kind::Unlimited:
      return std::numeric_limits<int64_t>::max();
    case Kind::Amount:
      return value;
    case Kind::PercentOfQuota:
      break;
  }
  // quota * value / 100 without overflow, rounded down.
  return (quota / 100) * value + (quota % 100) * value / 100;
}

const Family* Config::find_family(std::string_view name) const {
  for (const Family& family : families) {
    if (family.name == name) {
      return &family;
    }
  }
  return nullptr;
}

const Family* Config::family_of_partition(std::string_view partition) const {
  for (const Family& family : families) {
    if (std::find(family.partitions.begin(), family.partitions.end(), partition) !=
        family.partitions.end()) {
      return &family;
    }
  }
  return nullptr;
}

const ShareQuota* Config::find_quota(std::string_view share, std::string_view family) const {
  for (const ShareQuota& quota : shares) {
    if (quota.family == family && text::iequals(quota.share, share)) {
      return &quota;
    }
  }
  return nullptr;
}

bool Config::has_share(std::string_view share) const {
  return std::any_of(shares.begin(), shares.end(),
                     [&](const ShareQuota& quota) { return text::iequals(quota.share, share); });
}

namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool same_family(const Family& a, const Family& b) {
  return a.name == b.name && a.partitions == b.partitions && a.unit == b.unit &&
         a.capacity == b.capacity && a.hardware == b.hardware && a.fallback == b.fallback;
}

bool same_quota(const ShareQuota& a, const ShareQuota& b) {
  return a.share == b.share && a.family == b.family && a.quota == b.quota &&
         a.borrow_limit == b.borrow_limit && a.lend_limit == b.lend_limit &&
         a.borrow_weight == b.borrow_weight;
}

}  // namespace

std::vector<std::string> Config::share_names() const {
  std::vector<std::string> names;
  for (const ShareQuota& quota : shares) {
    names.push_back(to_lower(quota.share));
  }
  return sorted_unique(std::move(names));
}

std::vector<std::string> Config::share_names_in(std::string_view family) const {
  std::vector<std::string> names;
  for (const ShareQuota& quota : shares) {
    if (quota.family == family) {
      names.push_back(to_lower(quota.share));
    }
  }
  return sorted_unique(std::move(names));
}

std::vector<std::string> config_warnings(const Config& config) {
  std::vector<std::string> warnings;
  for (const Family& family : config.families) {
    for (const std::string& to : family.fallback) {
      for (const std::string& share : config.share_names_in(family.name)) {
        if (config.find_quota(share, to) != nullptr) continue;
        std::string warning = "share " + share;
        warning += " has no Share= line in family " + to;
        warning += ", a Fallback= family of " + family.name;
        warning += ": its jobs in " + family.name + " do not fall back to " + to;
        warnings.push_back(std::move(warning));
      }
    }
  }
  return warnings;
}

bool equivalent(const Config& a, const Config& b) {
  return std::equal(a.families.begin(), a.families.end(), b.families.begin(), b.families.end(),
                    same_family) &&
         std::equal(a.shares.begin(), a.shares.end(), b.shares.begin(), b.shares.end(),
                    same_quota) &&
         a.default_priority == b.default_priority &&
         a.in_share_preemption == b.in_share_preemption &&
         a.reclaim_min_runtime_s == b.reclaim_min_runtime_s &&
         a.reclaim_after_s == b.reclaim_after_s && a.borrow_order == b.borrow_order &&
         a.preempt_grace_time_s == b.preempt_grace_time_s &&
         a.max_keep_alive_s == b.max_keep_alive_s &&
         a.max_warm_pool_lifetime_s == b.max_warm_pool_lifetime_s &&
         a.warm_pool_mode == b.warm_pool_mode && a.warm_pool_match == b.warm_pool_match &&
         a.unlisted_accounts == b.unlisted_accounts && a.fallback_delay_s == b.fallback_delay_s &&
         a.max_fallback_requeues == b.max_fallback_requeues && a.image_store == b.image_store &&
         a.image_cache_dir == b.image_cache_dir &&
         a.image_cache_size_bytes == b.image_cache_size_bytes &&
         a.image_fetch_timeout_s == b.image_fetch_timeout_s &&
         a.image_cache_metrics_file == b.image_cache_metrics_file;
}

std::string ConfigError::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
  }
  out += ": ";
  if (!key.empty()) {
    out += key + ": ";
  }
  return out + message;
}

}  // namespace shareq
