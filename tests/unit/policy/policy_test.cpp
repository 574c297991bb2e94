// Policy::compile: dense ids, case-insensitive share names, limits resolved against the quota.
#include <gtest/gtest.h>

#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

Cluster TwoFamilies() {
  return Cluster()
      .family("p4", Unit::Node, 100)
      .family("p5", Unit::Gpu, 320)
      .share("ProdExp1", "p4", 60)
      .share("ProdExp2", "p4", 30)
      .borrow_limit(Amount(20))
      .lend_limit(Percent(50))
      .share("Research", "p5", 160)
      .borrow_limit(Percent(50));
}

TEST(PolicyCompile, GivesDenseIdsAndNamesInAnyCase) {
  const Policy policy = TwoFamilies().build();
  ASSERT_EQ(policy.family_count(), 2u);
  ASSERT_EQ(policy.share_count(), 3u);
  EXPECT_EQ(policy.family_id("p5"), FamilyId{1});
  EXPECT_EQ(policy.family_of_partition("p4"), FamilyId{0});
  EXPECT_EQ(policy.family_of_partition("gpu"), std::nullopt);
  EXPECT_EQ(policy.share_id("PRODEXP2"), policy.share_id("prodexp2"));
  EXPECT_EQ(policy.share_name(*policy.share_id("ProdExp1")), "prodexp1");
  EXPECT_EQ(policy.share_id("nobody"), std::nullopt);
}

TEST(PolicyCompile, ResolvesLimitsAgainstTheQuota) {
  const Policy policy = TwoFamilies().build();
  const QuotaRule* exp2 = policy.rule(*policy.share_id("prodexp2"), 0);
  ASSERT_NE(exp2, nullptr);
  EXPECT_EQ(exp2->quota, 30);
  EXPECT_EQ(exp2->borrow_limit, 20);
  EXPECT_EQ(exp2->lend_limit, 15);
  const QuotaRule* research = policy.rule(*policy.share_id("research"), 1);
  ASSERT_NE(research, nullptr);
  EXPECT_EQ(research->borrow_limit, 80);
  EXPECT_EQ(research->lend_limit, kUnlimited);
}

TEST(PolicyCompile, ShareWithoutLineInFamilyHasNoRule) {
  const Policy policy = TwoFamilies().build();
  EXPECT_EQ(policy.rule(*policy.share_id("research"), 0), nullptr);
  EXPECT_EQ(policy.quota(*policy.share_id("research"), 0), 0);
  EXPECT_EQ(policy.rule(99, 0), nullptr);
  EXPECT_EQ(policy.rule(0, 99), nullptr);
}

TEST(PolicyCompile, UnassignedCapacityIsCapacityMinusQuotas) {
  const Policy policy = TwoFamilies().build();
  EXPECT_EQ(policy.family(0).unassigned, 10);
  EXPECT_EQ(policy.family(1).unassigned, 160);
}

TEST(PolicyCompile, CopiesSettings) {
  const Policy policy = TwoFamilies().reclaim_min_runtime(30).in_share_preemption(false).build();
  EXPECT_EQ(policy.reclaim_min_runtime_s, 30);
  EXPECT_FALSE(policy.in_share_preemption);
}

}  // namespace
}  // namespace shareq::policy::testing
