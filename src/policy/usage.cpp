// Decayed usage: half-life decay and accrual of what running jobs used.
#include "policy/usage.hpp"

#include <cmath>

namespace shareq::policy {

double decay_factor(int64_t elapsed_s, int64_t half_life_s) {
  if (half_life_s <= 0 || elapsed_s <= 0) return 1.0;
  return std::exp2(-static_cast<double>(elapsed_s) / static_cast<double>(half_life_s));
}

namespace {

void add_seconds(DecayedUsage& usage, const Policy& policy, ShareId share, FamilyId family,
                 int64_t amount, int64_t elapsed_s) {
  const size_t families = policy.family_count();
  if (share >= policy.share_count() || family >= families || amount <= 0) return;
  usage[share * families + family] += static_cast<double>(amount) * static_cast<double>(elapsed_s);
}

}  // namespace

void accrue(DecayedUsage& usage, const Policy& policy, std::span<const RunningJob> running,
            int64_t elapsed_s, int64_t half_life_s, std::span<const HeldCapacity> held) {
  const size_t families = policy.family_count();
  const size_t size = policy.share_count() * families;
  if (usage.size() != size) usage.assign(size, 0.0);
  if (elapsed_s <= 0) return;
  const double factor = decay_factor(elapsed_s, half_life_s);
  for (double& value : usage) value = std::isfinite(value) && value > 0 ? value * factor : 0.0;
  for (const RunningJob& job : running) {
    add_seconds(usage, policy, job.share, job.family, job.amount, elapsed_s);
  }
  for (const HeldCapacity& h : held)
    add_seconds(usage, policy, h.share, h.family, h.amount, elapsed_s);
}

DecayedUsage carry_over(const DecayedUsage& usage, const Policy& from, const Policy& to) {
  DecayedUsage out(to.share_count() * to.family_count(), 0.0);
  if (usage.size() != from.share_count() * from.family_count()) return out;
  for (size_t s = 0; s < from.share_count(); ++s) {
    const auto share = to.share_id(from.share_name(static_cast<ShareId>(s)));
    for (size_t f = 0; f < from.family_count() && share; ++f) {
      const auto family = to.family_id(from.family(static_cast<FamilyId>(f)).name);
      if (family) out[*share * to.family_count() + *family] = usage[s * from.family_count() + f];
    }
  }
  return out;
}

}  // namespace shareq::policy
