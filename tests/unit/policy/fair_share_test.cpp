// Slurm's fair-share arithmetic (policy/fair_share.hpp), and shareq's one decay model
// (decay_factor, 2^(-t/half-life)) against Slurm's own (1 - 0.693/half-life)^t, with figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "policy/fair_share.hpp"
#include "policy/usage.hpp"

namespace shareq::policy {
namespace {

// A share that runs 8 GPUs without pause, accrued every PriorityCalcPeriod for four half-lives,
// under each model. Slurm adds run_delta x decay^run_delta (multifactor's
// _handle_assoc_tres_run_secs: as if the period's use came at its start), shareq run_delta after
// decaying what was there (as if it came at the end); the continuous truth lies between.
struct Accrued {
  double shareq = 0;
  double slurm = 0;
  double exact = 0;
};

Accrued ConstantJob(int64_t half_life_s, int64_t period_s) {
  Accrued a;
  int64_t t = 0;
  for (; t < 4 * half_life_s; t += period_s) {
    a.shareq = a.shareq * decay_factor(period_s, half_life_s) + 8.0 * period_s;
    a.slurm = a.slurm * slurm_decay_factor(period_s, half_life_s) +
              8.0 * period_s * slurm_decay_factor(period_s, half_life_s);
  }
  const double rate = std::log(2.0) / static_cast<double>(half_life_s);
  a.exact = 8.0 / rate * (1 - std::exp(-rate * static_cast<double>(t)));
  return a;
}

TEST(FairShare, ShareqsDecayIsSlurmsAndItsAccrualIsAsCloseToTheTruth) {
  // PriorityDecayHalfLife 1 hour, 1 day, 7 days (Slurm's default), 14 days; PriorityCalcPeriod
  // 300 s (Slurm's default).
  for (const int64_t half_life : {3600L, 86'400L, 604'800L, 1'209'600L}) {
    const int64_t period = 300;
    const Accrued a = ConstantJob(half_life, period);
    const double ours = (a.shareq - a.exact) / a.exact;
    const double slurms = (a.slurm - a.exact) / a.exact;
    std::printf(
        "half-life %7lld s: one half-life decays to %.6f (shareq) / %.6f (Slurm); 8 GPUs "
        "for 4 half-lives: shareq %+.4f%%, Slurm %+.4f%% from the continuous %.6g GPU-s\n",
        static_cast<long long>(half_life), decay_factor(half_life, half_life),
        slurm_decay_factor(half_life, half_life), 100 * ours, 100 * slurms, a.exact);
    EXPECT_DOUBLE_EQ(decay_factor(half_life, half_life), 0.5);
    EXPECT_NEAR(slurm_decay_factor(half_life, half_life), 0.5, 1e-4);
    // First order, each model is off by at most a period's decay (shareq always above: it adds a
    // period's use undecayed; Slurm's 0.693 for ln 2 also shows at long half-lives).
    const double bound =
        std::log(2.0) * static_cast<double>(period) / static_cast<double>(half_life);
    EXPECT_GT(ours, 0);
    EXPECT_LE(ours, bound);
    EXPECT_LE(std::fabs(slurms), bound);
  }
}

TEST(FairShare, NoHalfLifeMeansNoDecayInBothModels) {
  EXPECT_EQ(slurm_decay_factor(300, 0), 1.0);
  EXPECT_EQ(decay_factor(300, 0), 1.0);
  EXPECT_EQ(slurm_decay_factor(0, 3600), 1.0);
}

TEST(FairShare, NormalizedUsageIsAPartOfTheRootsAtMostOne) {
  EXPECT_EQ(normalized_usage(25, 100), 0.25L);
  EXPECT_EQ(normalized_usage(150, 100), 1.0L);
  EXPECT_EQ(normalized_usage(5, 0), 0.0L);
}

TEST(FairShare, EffectiveUsageMovesTowardTheParentsByTheSharesPart) {
  // Slurm's classic formula: 0.2 + (0.6 - 0.2) * 1/4.
  EXPECT_NEAR(static_cast<double>(effective_usage(0.2L, 0.6L, 1, 4)), 0.3, 1e-12);
  EXPECT_EQ(effective_usage(0.2L, 0.6L, 1, 0), 0.6L);  // a level without shares: the parent's
}

TEST(FairShare, FactorHalvesWhenUsageReachesTheSharesPart) {
  EXPECT_DOUBLE_EQ(fair_share_factor(0.0L, 0.25L, 1), 1.0);
  EXPECT_DOUBLE_EQ(fair_share_factor(0.25L, 0.25L, 1), 0.5);
  EXPECT_DOUBLE_EQ(fair_share_factor(0.25L, 0.25L, 2), std::pow(2.0, -0.5));
  EXPECT_DOUBLE_EQ(fair_share_factor(0.25L, 0.25L, 0), 0.5);  // dampening 0 counts as 1
  EXPECT_EQ(fair_share_factor(0.1L, 0.0L, 1), 0.0);
  EXPECT_EQ(fair_share_factor(static_cast<long double>(0xfffffffe), 0.25L, 1), 0.0);  // NO_VAL
}

}  // namespace
}  // namespace shareq::policy
