#include "usage_store.hpp"

#include "policy/usage.hpp"

namespace shareq::ctld {
namespace {

constexpr double kForgotten = 1e-6;  // usage below this is dropped

policy::DecayedUsage to_dense(const std::map<std::pair<std::string, std::string>, double>& usage,
                              const policy::Policy& policy) {
  policy::DecayedUsage dense(policy.share_count() * policy.family_count(), 0.0);
  for (const auto& [key, value] : usage) {
    const auto s = policy.share_id(key.first);
    const auto f = policy.family_id(key.second);
    if (s && f) dense[*s * policy.family_count() + *f] = value;
  }
  return dense;
}

}  // namespace

std::shared_ptr<const policy::DecayedUsage> UsageStore::values(const LoadedConfig& config) {
  const RankedLock lock(mutex_);
  if (!cached_ || cached_change_ != change_ || cached_config_ != config.version) {
    cached_ = std::make_shared<const policy::DecayedUsage>(to_dense(usage_, config.policy));
    cached_change_ = change_;
    cached_config_ = config.version;
  }
  return cached_;
}

void UsageStore::accrue(const LoadedConfig& config, std::span<const policy::RunningJob> running,
                        int64_t now, int64_t half_life_s,
                        std::span<const policy::HeldCapacity> held) {
  const RankedLock lock(mutex_);
  if (!last_ran_) {
    last_ran_ = now;
    return;
  }
  const int64_t elapsed = now - *last_ran_;
  if (elapsed <= 0) return;
  const policy::Policy& p = config.policy;
  // Entries the current policy does not know decay too; the rest go through the core.
  const double factor = policy::decay_factor(elapsed, half_life_s);
  policy::DecayedUsage dense = to_dense(usage_, p);
  policy::accrue(dense, p, running, elapsed, half_life_s, held);
  for (auto it = usage_.begin(); it != usage_.end();) {
    const bool known = p.share_id(it->first.first) && p.family_id(it->first.second);
    if (!known) it->second *= factor;
    it = (it->second < kForgotten) ? usage_.erase(it) : std::next(it);
  }
  for (size_t s = 0; s < p.share_count(); ++s) {
    for (size_t f = 0; f < p.family_count(); ++f) {
      const double v = dense[s * p.family_count() + f];
      const Key key{p.share_name(static_cast<policy::ShareId>(s)),
                    p.family(static_cast<policy::FamilyId>(f)).name};
      if (v >= kForgotten) {
        usage_[key] = v;
      } else {
        usage_.erase(key);
      }
    }
  }
  last_ran_ = now;
  ++change_;
}

std::optional<std::string> UsageStore::load(const std::string& path) {
  Result<UsageFile> file = read_usage_file(path);
  const RankedLock lock(mutex_);
  usage_.clear();
  last_ran_.reset();
  ++change_;
  if (!file) return file.error().to_string();
  for (const UsageRecord& r : file.value().records) usage_[{r.share, r.family}] = r.value;
  last_ran_ = file.value().last_ran;
  return std::nullopt;
}

std::optional<std::string> UsageStore::save(const std::string& path) const {
  return write_usage_file(path, snapshot());
}

std::optional<int64_t> UsageStore::last_ran() const {
  const RankedLock lock(mutex_);
  return last_ran_;
}

UsageFile UsageStore::snapshot() const {
  const RankedLock lock(mutex_);
  UsageFile file;
  file.last_ran = last_ran_.value_or(0);
  for (const auto& [key, value] : usage_) file.records.push_back({key.first, key.second, value});
  return file;
}

}  // namespace shareq::ctld
