// Held capacity (WarmPoolMode=reserve): a waiting warm pool counts as its owning share's usage in
// the ledger, so quota, borrow, reclaim and fair share see it; it is never a victim; and a job
// that claims the pool sees the ledger without it (the pool's nodes become its own usage).
#include <gtest/gtest.h>

#include "policy/usage.hpp"
#include "policy/victims.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

// p4: 4 nodes split evenly; a may not borrow. p5: 16 GPUs, a has 8.
Cluster Reserve() {
  return Cluster()
      .family("p4", Unit::Node, 4)
      .share("a", "p4", 2)
      .borrow_limit(Amount(0))
      .share("b", "p4", 2)
      .family("p5", Unit::Gpu, 16)
      .share("a", "p5", 8);
}

HeldCapacity held(const World& world, const std::string& share, const std::string& family,
                  int64_t amount, uint64_t pool = 1) {
  return {pool, world.share(share), world.family(family), amount};
}

TEST(HeldCapacity, CountsAsTheOwnersUsageLikeARunningJob) {
  const World world(Reserve(), {Running(1).share("a").amount(1)});
  const std::vector<HeldCapacity> pools = {held(world, "a", "p4", 2)};
  const Ledger ledger(world.policy, world.running, pools);
  const FamilyId p4 = world.family("p4");
  EXPECT_EQ(ledger.usage(world.share("a"), p4), 3);
  EXPECT_EQ(ledger.used(p4), 3);
  EXPECT_EQ(ledger.idle(p4), 1);
  EXPECT_EQ(ledger.borrowed(world.share("a"), p4), 1);
  EXPECT_EQ(ledger.borrowed_total(p4), 1);
}

TEST(HeldCapacity, GpuFamilyCountsTheNodesGpus) {
  const World world(Reserve(), {});
  const std::vector<HeldCapacity> pools = {held(world, "a", "p5", 8)};
  const Ledger ledger(world.policy, world.running, pools);
  EXPECT_EQ(ledger.usage(world.share("a"), world.family("p5")), 8);
  // The share's quota is used up: one more GPU would borrow.
  EXPECT_FALSE(admit(ledger, world.share("a"), world.family("p5"), 1).within_quota);
}

TEST(HeldCapacity, QuotaUsedUpByAWarmPoolStopsAWithinQuotaSizedJob) {
  const World world(Reserve(), {});
  const std::vector<HeldCapacity> pools = {held(world, "a", "p4", 2)};
  const Ledger ledger(world.policy, world.running, pools);
  const Admission admission = admit(ledger, world.share("a"), world.family("p4"), 1);
  EXPECT_FALSE(admission.within_quota);
  EXPECT_FALSE(admission.can_start);
  EXPECT_EQ(admission.reason, WaitReason::ShareAtBorrowLimit);
  // Without the pool the same job is within quota and starts.
  EXPECT_TRUE(admit(Ledger(world.policy, world.running), world.share("a"), world.family("p4"), 1)
                  .can_start);
}

TEST(HeldCapacity, AClaimingJobSeesTheLedgerWithoutThePoolSoNothingCountsTwice) {
  const World world(Reserve(), {});
  const HeldCapacity pool = held(world, "a", "p4", 2);
  const Ledger ledger(world.policy, world.running, std::vector<HeldCapacity>{pool});
  const Ledger claimer = ledger.without(pool);
  const Admission admission = admit(claimer, world.share("a"), world.family("p4"), 2);
  EXPECT_TRUE(admission.within_quota);
  EXPECT_TRUE(admission.can_start);
  EXPECT_EQ(ledger.usage(world.share("a"), world.family("p4")), 2);  // the original is untouched
  EXPECT_EQ(claimer.usage(world.share("a"), world.family("p4")), 0);
}

TEST(HeldCapacity, OtherSharesSeeTheFamilyFullAndCannotReclaimWarmNodes) {
  // a holds 2 warm nodes (its quota); b runs 2 (its quota): the family is full. b's next job
  // would borrow and finds nothing to borrow, and there is nothing to preempt: warm nodes are no
  // job.
  const World world(Reserve(), {Running(1).share("b").amount(2).started(0)});
  const std::vector<HeldCapacity> pools = {held(world, "a", "p4", 2)};
  const Ledger ledger(world.policy, world.running, pools);
  const FamilyId p4 = world.family("p4");
  EXPECT_EQ(admit(ledger, world.share("b"), p4, 1).reason, WaitReason::NothingToBorrow);
  const PendingJob job = Pending(9).share("b").request("p4", 1).resolve(world.policy);
  const VictimChoice choice = pick_victims(ledger, job, p4, 1, world.running, 10000);
  EXPECT_FALSE(choice.possible);
  EXPECT_TRUE(choice.victims.empty());
}

TEST(HeldCapacity, RunningJobsBeyondQuotaBecauseOfAPoolAreBorrowedAndReclaimable) {
  // b holds 1 warm node and runs 2: it borrows 1 through its running jobs, which a reclaims.
  const World world(
      Cluster().family("p4", Unit::Node, 4).share("a", "p4", 2).share("b", "p4", 2),
      {Running(1).share("b").amount(1).started(0), Running(2).share("b").amount(1).started(5),
       Running(3).share("a").amount(1).started(0)});
  const std::vector<HeldCapacity> pools = {held(world, "b", "p4", 1)};
  const Ledger ledger(world.policy, world.running, pools);
  const FamilyId p4 = world.family("p4");
  EXPECT_EQ(ledger.borrowed(world.share("b"), p4), 1);
  const PendingJob job = Pending(9).share("a").request("p4", 1).resolve(world.policy);
  const VictimChoice choice = pick_victims(ledger, job, p4, 1, world.running, 10000);
  ASSERT_TRUE(choice.possible);
  EXPECT_EQ(ids(choice), (std::vector<JobId>{2}));  // latest start first
}

TEST(HeldCapacity, RemoveNeverGoesBelowZeroAndIgnoresUnknownIds) {
  const World world(Reserve(), {});
  Ledger ledger(world.policy, world.running);
  ledger.remove(held(world, "a", "p4", 2));
  ledger.add(held(world, "nobody", "p4", 2));
  ledger.add(HeldCapacity{1, world.share("a"), world.family("p4"), -3});
  EXPECT_EQ(ledger.used(world.family("p4")), 0);
  EXPECT_EQ(ledger.usage(world.share("a"), world.family("p4")), 0);
}

TEST(HeldCapacity, AccruesFairShareUsageLikeARunningJob) {
  const World world(Reserve(), {Running(1).share("b").amount(1)});
  const std::vector<HeldCapacity> pools = {held(world, "a", "p4", 2), held(world, "a", "p5", 8)};
  DecayedUsage usage;
  accrue(usage, world.policy, world.running, 100, 0, pools);
  const size_t families = world.policy.family_count();
  EXPECT_DOUBLE_EQ(usage[world.share("a") * families + world.family("p4")], 200.0);
  EXPECT_DOUBLE_EQ(usage[world.share("a") * families + world.family("p5")], 800.0);
  EXPECT_DOUBLE_EQ(usage[world.share("b") * families + world.family("p4")], 100.0);
}

}  // namespace
}  // namespace shareq::policy::testing
