// Slurm's fair-share figures for the association tree (what sshare prints and sprio's Fairshare
// column), as plain arithmetic: priority/shareq keeps Slurm's association usage with these and
// policy::decay_factor (usage.hpp), the one decay model for shares and associations alike.
// Formulas of Slurm 22.05's priority/multifactor, classic (non-FAIR_TREE) branch.
#pragma once

#include <cstdint>

namespace shareq::policy {

// Slurm's own per-period decay: (1 - 0.693 / half_life)^elapsed (multifactor's decay_factor and
// _apply_decay). shareq decays with decay_factor(), 2^(-elapsed / half_life); the unit tests
// hold the two within 0.1% over four half-lives.
double slurm_decay_factor(int64_t elapsed_s, int64_t half_life_s);

// usage_raw / root's usage_raw, at most 1; 0 when the root has none (set_assoc_usage_norm).
long double normalized_usage(long double usage_raw, long double root_usage_raw);

// The effective usage of an association whose fair-share parent is not the root:
// usage_norm + (parent_efctv - usage_norm) * shares / level_shares, or the parent's when its
// level has no shares (_set_usage_efctv).
long double effective_usage(long double usage_norm, long double parent_efctv, uint32_t shares,
                            uint32_t level_shares);

// 2^(-(usage_efctv / shares_norm) / dampening); 0 when shares_norm <= 0 or usage_efctv is
// Slurm's NO_VAL; a dampening <= 0 counts as 1 (FairShareDampeningFactor).
double fair_share_factor(long double usage_efctv, long double shares_norm, double dampening);

}  // namespace shareq::policy
