// Decayed usage: what a share has used over time, with a half-life (PriorityDecayHalfLife).
#pragma once

#include <cstdint>
#include <span>

#include "policy/jobs.hpp"
#include "policy/ordering.hpp"

namespace shareq::policy {

// How often shareq accrues usage and ranks the queue again, in seconds, for slurm.conf's
// PriorityCalcPeriod (seconds): PriorityCalcPeriod when it is 1..5 s, else 5 s. Slurm's default
// of 5 minutes is far too slow for borrow and reclaim decisions. priority/shareq's thread and
// `shareq sim` both run on it.
inline constexpr int64_t kMaxRecalcPeriodS = 5;
constexpr int64_t recalc_period_s(int64_t priority_calc_period_s) {
  return priority_calc_period_s >= 1 && priority_calc_period_s <= kMaxRecalcPeriodS
             ? priority_calc_period_s
             : kMaxRecalcPeriodS;
}

// 2^(-elapsed / half_life); 1 when half_life <= 0 (no decay) or elapsed <= 0.
double decay_factor(int64_t elapsed_s, int64_t half_life_s);

// Decays `usage` over `elapsed_s` and adds what `running` used in that time (amount x seconds,
// added undecayed: call it every few minutes, as Slurm's PriorityCalcPeriod does, so the error
// stays small). A `usage` of another size than share_count x family_count (empty, or from an
// older configuration) starts again from zero; negative or non-finite entries become 0. Jobs of
// unknown shares or families are skipped. elapsed_s <= 0 changes nothing else. `held` (reserved
// warm pools) accrues like running jobs: capacity a share keeps from everyone else is usage for
// fair share too.
void accrue(DecayedUsage& usage, const Policy& policy, std::span<const RunningJob> running,
            int64_t elapsed_s, int64_t half_life_s, std::span<const HeldCapacity> held = {});

// `usage` kept under policy `from`, re-indexed for policy `to` by share and family names (after
// scontrol reconfigure), so history survives a new Share= line or family. Pairs that `to` lacks
// are dropped; new ones start at 0.
DecayedUsage carry_over(const DecayedUsage& usage, const Policy& from, const Policy& to);

}  // namespace shareq::policy
