// pools_to_end: a job that reclaims ends reserved warm pools of borrowing shares before it
// preempts running work.
#include <gtest/gtest.h>

#include "policy/warm_reclaim.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

constexpr Time kNow = 10'000;

struct Case {
  World world;
  std::vector<HeldCapacity> held;
  Ledger ledger() const { return Ledger(world.policy, world.running, held); }
  HeldCapacity pool(uint64_t id, const std::string& share, int64_t amount) const {
    return {id, world.share(share), world.family("p4"), amount};
  }
};

// a runs two jobs and keeps a one-node pool warm: it borrows 1. b runs one job.
Case ABorrowsThroughItsPool() {
  Case c{World(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                          Running(3).share("b").started(300)}),
         {}};
  c.held = {c.pool(7, "a", 1)};
  return c;
}

TEST(PoolsToEnd, AJobWithinQuotaEndsTheBorrowersPoolRatherThanItsRunningJobs) {
  const Case c = ABorrowsThroughItsPool();
  const PendingJob job = Pending(10).share("b").request("p4", 1).resolve(c.world.policy);
  EXPECT_EQ(pools_to_end(c.ledger(), job, c.world.family("p4"), 1, c.held),
            std::vector<uint64_t>{7});
  // Without the pool the family has room: nothing is preempted.
  const Ledger after = c.ledger().without(c.held[0]);
  EXPECT_TRUE(admit(after, job.share, c.world.family("p4"), 1).can_start);
}

TEST(PoolsToEnd, NeverAPoolThatKeepsItsShareWithinQuota) {
  Case c{World(EvenAB(), {Running(1).share("a").started(100), Running(3).share("b").started(300),
                          Running(4).share("b").started(400)}),
         {}};
  c.held = {c.pool(7, "a", 1)};  // a: 1 running + 1 warm = its quota; the family is full
  const PendingJob job = Pending(10).share("b").request("p4", 1).resolve(c.world.policy);
  EXPECT_TRUE(pools_to_end(c.ledger(), job, c.world.family("p4"), 1, c.held).empty());
}

TEST(PoolsToEnd, NeverTheJobsOwnSharesPoolNorForAJobThatWouldBorrow) {
  const Case c = ABorrowsThroughItsPool();
  const PendingJob own = Pending(10).share("a").request("p4", 1).resolve(c.world.policy);
  EXPECT_TRUE(pools_to_end(c.ledger(), own, c.world.family("p4"), 1, c.held).empty());
  const PendingJob borrower = Pending(11).share("b").request("p4", 2).resolve(c.world.policy);
  EXPECT_TRUE(pools_to_end(c.ledger(), borrower, c.world.family("p4"), 2, c.held).empty());
}

TEST(PoolsToEnd, NothingWhenTheJobFitsAlready) {
  Case c{World(EvenAB(), {Running(1).share("a").started(100)}), {}};
  c.held = {c.pool(7, "a", 2)};
  const PendingJob job = Pending(10).share("b").request("p4", 1).resolve(c.world.policy);
  EXPECT_TRUE(pools_to_end(c.ledger(), job, c.world.family("p4"), 1, c.held).empty());
}

TEST(PoolsToEnd, MostBorrowingShareFirstAndNoMoreThanNeeded) {
  const Cluster three = Cluster()
                            .family("p4", Unit::Node, 8)
                            .share("a", "p4", 2)
                            .share("b", "p4", 2)
                            .share("c", "p4", 4)
                            .reclaim_min_runtime(0);
  // a: 2 running + pools of 1 and 2 (borrows 3); b: 1 running + a pool of 1 (at quota); c: 1.
  Case c{World(three, {Running(1).share("a").started(100), Running(2).share("a").started(200),
                       Running(3).share("b").started(300), Running(4).share("c").started(400)}),
         {}};
  c.held = {c.pool(5, "a", 1), c.pool(6, "a", 2), c.pool(8, "b", 1)};
  const PendingJob job = Pending(10).share("c").request("p4", 2).resolve(c.world.policy);
  // Need 2: a's larger pool alone is enough; b's pool keeps b at its quota.
  EXPECT_EQ(pools_to_end(c.ledger(), job, c.world.family("p4"), 2, c.held),
            std::vector<uint64_t>{6});
  const PendingJob bigger = Pending(11).share("c").request("p4", 3).resolve(c.world.policy);
  EXPECT_EQ(pools_to_end(c.ledger(), bigger, c.world.family("p4"), 3, c.held),
            (std::vector<uint64_t>{6, 5}));
}

TEST(PoolsToEnd, WhenPoolsAreNotEnoughRunningJobsAreReclaimedForTheRest) {
  // a runs 3 (borrows 1) and keeps a pool of 1 (borrows 2 in all); b runs nothing and wants 2.
  Case c{World(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                          Running(3).share("a").started(300)}),
         {}};
  c.held = {c.pool(7, "a", 1)};
  const PendingJob job = Pending(10).share("b").request("p4", 2).resolve(c.world.policy);
  const auto pools = pools_to_end(c.ledger(), job, c.world.family("p4"), 2, c.held);
  ASSERT_EQ(pools, std::vector<uint64_t>{7});
  const Ledger after = c.ledger().without(c.held[0]);
  const VictimChoice rest =
      pick_victims(after, job, c.world.family("p4"), 2, c.world.running, kNow);
  ASSERT_TRUE(rest.possible);
  EXPECT_EQ(ids(rest), std::vector<JobId>{3});  // the youngest of a's jobs, and only one
}

}  // namespace
}  // namespace shareq::policy::testing
