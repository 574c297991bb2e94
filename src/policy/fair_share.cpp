#include "policy/fair_share.hpp"

#include <cmath>

namespace shareq::policy {
namespace {

constexpr long double kSlurmNoVal = 0xfffffffe;  // NO_VAL, as Slurm stores it in a long double

}  // namespace

double slurm_decay_factor(int64_t elapsed_s, int64_t half_life_s) {
  if (half_life_s <= 0 || elapsed_s <= 0) return 1.0;
  return std::pow(1.0 - 0.693 / static_cast<double>(half_life_s), static_cast<double>(elapsed_s));
}

long double normalized_usage(long double usage_raw, long double root_usage_raw) {
  if (root_usage_raw == 0) return 0;
  const long double norm = usage_raw / root_usage_raw;
  return norm > 1 ? 1 : norm;
}

long double effective_usage(long double usage_norm, long double parent_efctv, uint32_t shares,
                            uint32_t level_shares) {
  if (level_shares == 0) return parent_efctv;
  return usage_norm +
         (parent_efctv - usage_norm) * (shares / static_cast<long double>(level_shares));
}

double fair_share_factor(long double usage_efctv, long double shares_norm, double dampening) {
  if (std::fabs(usage_efctv - kSlurmNoVal) < 1e-5L || shares_norm <= 0) return 0.0;
  const double damp = dampening > 0 ? dampening : 1;
  return std::pow(2.0, -static_cast<double>(usage_efctv / shares_norm) / damp);
}

}  // namespace shareq::policy
