// Decayed usage: the half-life factor, accrual from running jobs, and carrying history across a
// reconfiguration.
#include <gtest/gtest.h>

#include <cmath>

#include "policy/usage.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

Cluster Two() {
  return Cluster().family("p4", Unit::Node, 4).share("a", "p4", 2).share("b", "p4", 2);
}

TEST(DecayFactor, HalvesEachHalfLife) {
  EXPECT_DOUBLE_EQ(decay_factor(3600, 3600), 0.5);
  EXPECT_DOUBLE_EQ(decay_factor(7200, 3600), 0.25);
  EXPECT_DOUBLE_EQ(decay_factor(0, 3600), 1.0);
  EXPECT_DOUBLE_EQ(decay_factor(-5, 3600), 1.0);
  EXPECT_DOUBLE_EQ(decay_factor(3600, 0), 1.0);  // no half-life: no decay
}

TEST(Accrue, DecaysThenAddsAmountTimesSeconds) {
  const World world(Two(), {Running(1).share("a").amount(2), Running(2).share("b")});
  DecayedUsage usage;
  accrue(usage, world.policy, world.running, 100, 100);
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_DOUBLE_EQ(usage[world.share("a")], 200.0);
  EXPECT_DOUBLE_EQ(usage[world.share("b")], 100.0);
  accrue(usage, world.policy, world.running, 100, 100);
  EXPECT_DOUBLE_EQ(usage[world.share("a")], 300.0);  // 200 / 2 + 200
}

TEST(Accrue, NothingElapsedChangesNothing) {
  const World world(Two(), {Running(1).share("a").amount(2)});
  DecayedUsage usage = {5.0, 6.0};
  accrue(usage, world.policy, world.running, 0, 100);
  EXPECT_EQ(usage, (DecayedUsage{5.0, 6.0}));
}

TEST(Accrue, WrongSizeStartsAgainAndBadEntriesBecomeZero) {
  const World world(Two(), {});
  DecayedUsage usage = {1.0, 2.0, 3.0};
  accrue(usage, world.policy, world.running, 10, 0);
  EXPECT_EQ(usage, (DecayedUsage{0.0, 0.0}));
  usage = {-4.0, std::nan("")};
  accrue(usage, world.policy, world.running, 10, 0);
  EXPECT_EQ(usage, (DecayedUsage{0.0, 0.0}));
}

TEST(CarryOver, KeepsHistoryByNameAcrossAReconfiguration) {
  const Policy before = Two().build();
  const Policy after =
      Cluster().family("p4", Unit::Node, 4).share("A", "p4", 1).share("c", "p4", 1).build();
  const DecayedUsage usage = {10.0, 20.0};  // a, b
  const DecayedUsage carried = carry_over(usage, before, after);
  ASSERT_EQ(carried.size(), 2u);
  EXPECT_DOUBLE_EQ(carried[*after.share_id("a")], 10.0);
  EXPECT_DOUBLE_EQ(carried[*after.share_id("c")], 0.0);
}

}  // namespace
}  // namespace shareq::policy::testing
