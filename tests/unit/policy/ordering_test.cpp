// prioritize: each ordering criterion in isolation, the packing, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "policy/ordering.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

// p4: 12 nodes; a and b quota 4, z quota 0 (a pure borrower). p5: 8 GPUs, only b. Accounts in
// no share borrow as kUnlistedShare.
Cluster Shares() {
  return Cluster()
      .unlisted_borrow()
      .family("p4", Unit::Node, 12)
      .family("p5", Unit::Gpu, 8)
      .share("a", "p4", 4)
      .share("b", "p4", 4)
      .share("b", "p5", 8)
      .share("z", "p4", 0);
}

struct OrderCase {
  std::string name;
  std::vector<Running> running;
  std::vector<double> decayed;  // per share (a, b, z) in p4; empty = no history
  Pending first;                // must get the strictly higher priority
  Pending second;
};

void PrintTo(const OrderCase& c, std::ostream* os) { *os << c.name; }

class Order : public ::testing::TestWithParam<OrderCase> {};

TEST_P(Order, FirstGoesBeforeSecond) {
  const OrderCase& c = GetParam();
  const World world(Shares(), c.running);
  DecayedUsage usage;
  if (!c.decayed.empty()) {
    usage.assign(world.policy.share_count() * world.policy.family_count(), 0.0);
    for (size_t s = 0; s < c.decayed.size(); ++s)
      usage[s * world.policy.family_count()] = c.decayed[s];
  }
  const std::vector<PendingJob> pending = {c.first.resolve(world.policy),
                                           c.second.resolve(world.policy)};
  const auto pending_before = pending;
  const auto usage_before = usage;
  const auto factors = prioritize(world.ledger(), usage, pending);
  ASSERT_EQ(factors.size(), 2u);
  EXPECT_GT(factors[0].priority, factors[1].priority);
  EXPECT_EQ(pending, pending_before);
  EXPECT_EQ(usage, usage_before);
}

INSTANTIATE_TEST_SUITE_P(
    Criteria, Order,
    ::testing::Values(OrderCase{"within_quota_before_borrower_whatever_the_job_priority",
                                {Running(1).share("b").amount(4)},
                                {},
                                Pending(1).share("a").priority(0).request("p4", 1),
                                Pending(2).share("b").priority(99).request("p4", 1)},
                      OrderCase{"share_furthest_below_quota_first",
                                {Running(1).share("a").amount(1), Running(2).share("b").amount(3)},
                                {},
                                Pending(1).share("a").priority(0).request("p4", 1),
                                Pending(2).share("b").priority(99).request("p4", 1)},
                      OrderCase{"borrower_with_least_decayed_usage_per_quota_first",
                                {Running(1).share("a").amount(4), Running(2).share("b").amount(4)},
                                {1000.0, 100.0, 0.0},
                                Pending(1).share("b").priority(0).request("p4", 1),
                                Pending(2).share("a").priority(99).request("p4", 1)},
                      OrderCase{"borrower_with_a_quota_before_a_quota_zero_share",
                                {Running(1).share("a").amount(4)},
                                {1e9, 0.0, 0.0},
                                Pending(1).share("a").priority(0).request("p4", 1),
                                Pending(2).share("z").priority(99).request("p4", 1)},
                      OrderCase{"inside_a_share_higher_priority_first",
                                {},
                                {},
                                Pending(1).share("a").priority(80).request("p4", 1),
                                Pending(2).share("a").priority(10).request("p4", 1)},
                      OrderCase{"inside_a_share_and_priority_lower_nice_first",
                                {},
                                {},
                                Pending(1).share("a").submitted(20).request("p4", 1),
                                Pending(2).share("a").submitted(10).nice(100).request("p4", 1)},
                      OrderCase{"a_large_nice_still_orders",
                                {},
                                {},
                                Pending(1).share("a").submitted(20).nice(1000).request("p4", 1),
                                Pending(2).share("a").submitted(10).nice(1000000).request("p4", 1)},
                      OrderCase{"a_negative_nice_goes_ahead",
                                {},
                                {},
                                Pending(1).share("a").submitted(20).nice(-10).request("p4", 1),
                                Pending(2).share("a").submitted(10).request("p4", 1)},
                      OrderCase{"nice_never_crosses_the_share_priority",
                                {},
                                {},
                                Pending(1).share("a").priority(51).nice(100000).request("p4", 1),
                                Pending(2).share("a").priority(50).nice(-100000).request("p4", 1)},
                      OrderCase{"unlisted_accounts_after_every_shares_borrowers",
                                {Running(1).share("a").amount(4)},
                                {1e9, 1e9, 1e9, 0.0},
                                Pending(1).share("z").priority(0).request("p4", 1),
                                Pending(2).share("(unlisted)").priority(99).request("p4", 1)},
                      OrderCase{"best_family_counts_not_the_first_listed",
                                {Running(1).share("b").amount(8).family("p5"),
                                 Running(2).share("a").amount(3)},
                                {},
                                Pending(1).share("b").priority(0).request("p5", 1).request("p4", 1),
                                Pending(2).share("a").priority(99).request("p4", 1)},
                      OrderCase{"a_job_that_can_run_nowhere_goes_last",
                                {},
                                {},
                                Pending(1).share("z").priority(0).request("p4", 12),
                                Pending(2).share("z").priority(99).request("p5", 1)}),
    [](const auto& info) { return info.param.name; });

TEST(NiceLevel, ExactNearZeroOrderedBeyondAndAlwaysInRange) {
  EXPECT_EQ(nice_level(0), kNiceCenter);
  EXPECT_EQ(nice_level(1000), kNiceCenter - 1000);  // as Slurm's own plugins: nice is subtracted
  EXPECT_EQ(nice_level(1200), kNiceCenter - 1200);
  EXPECT_EQ(nice_level(-1200), kNiceCenter + 1200);
  uint32_t last = nice_level(-2147483645);
  EXPECT_LT(last, kJobPriorityWeight);
  for (int64_t nice = -2147483645; nice < 2147483645; nice += nice < 0 ? -nice / 2 + 1 : nice + 1) {
    const uint32_t level = nice_level(nice);
    EXPECT_LE(level, last) << nice;
    EXPECT_GE(level, 1u) << nice;
    last = level;
  }
  EXPECT_GT(nice_level(1201), nice_level(10000));
  EXPECT_GT(nice_level(10000), nice_level(100000000));
  EXPECT_GE(nice_level(INT64_MAX), 1u);
  EXPECT_LT(nice_level(INT64_MIN), kJobPriorityWeight);
}

TEST(Order, EqualStandingAndPriorityTieSoSlurmOrdersByAge) {
  const World world(Shares(), {});
  const std::vector<PendingJob> pending = {
      Pending(1).share("a").submitted(10).request("p4", 1).resolve(world.policy),
      Pending(2).share("b").submitted(5).request("p4", 1).resolve(world.policy)};
  const auto factors = prioritize(world.ledger(), {}, pending);
  EXPECT_EQ(factors[0].priority, factors[1].priority);
}

TEST(Order, PacksTheFactorsAsDocumented) {
  const World world(Shares(), {Running(1).share("b").amount(4)});
  const PendingJob within =
      Pending(1).share("a").priority(42).request("p4", 1).resolve(world.policy);
  const PendingJob borrower =
      Pending(2).share("b").priority(150).request("p4", 1).resolve(world.policy);
  const PriorityFactors w = prioritize_one(world.ledger(), {}, within);
  EXPECT_TRUE(w.within_quota);
  EXPECT_EQ(w.tier, kWithinQuotaTier);
  EXPECT_EQ(w.job_priority, 42u);
  EXPECT_GE(w.share_rank, 1u);
  EXPECT_EQ(w.nice_level, kNiceCenter);  // nice 0
  EXPECT_EQ(w.priority, w.tier + w.share_rank * kShareRankWeight +
                            w.job_priority * kJobPriorityWeight + kNiceCenter);
  const PriorityFactors b = prioritize_one(world.ledger(), {}, borrower);
  EXPECT_FALSE(b.within_quota);
  EXPECT_EQ(b.tier, 0u);
  EXPECT_EQ(b.job_priority, 99u);  // clamped
  EXPECT_EQ(b.priority, b.share_rank * kShareRankWeight + 99 * kJobPriorityWeight + kNiceCenter);
}

TEST(Order, PriorityIsNeverZero) {
  const World world(Shares(), {});
  const PendingJob nowhere = Pending(1).share("nobody").priority(-5).resolve(world.policy);
  PendingJob nicest = nowhere;
  nicest.nice = 2147483645;  // Slurm's largest nice
  const PriorityFactors f = prioritize_one(world.ledger(), {}, nicest);
  EXPECT_GE(f.priority, 1u);
  EXPECT_LE(f.priority, 2u);  // the lowest nice levels
  EXPECT_EQ(f.share_rank, 0u);
}

TEST(Order, QuotaZeroCountsAsFullyUsed) {
  const World world(Shares(), {Running(1).share("a").amount(4), Running(2).share("b").amount(4)});
  const ShareRanks ranks = rank_shares(world.ledger(), {});
  const size_t families = world.policy.family_count();
  const auto at = [&](const std::string& share) { return world.share(share) * families; };
  EXPECT_EQ(ranks.within[at("z")], ranks.within[at("a")]);       // 0/0 ranks like 4/4
  EXPECT_EQ(ranks.within[world.share("a") * families + 1], 0u);  // a has no quota in p5
}

// BorrowWeight scales what a share's decayed usage counts against among borrowers only.
TEST(Order, BorrowWeightPutsAHeavierUserFirstAmongBorrowersOnly) {
  auto cluster = [](int64_t weight_of_a) {
    return Cluster()
        .family("p4", Unit::Node, 12)
        .share("a", "p4", 4)
        .borrow_weight(weight_of_a)
        .share("b", "p4", 4);
  };
  const std::vector<Running> running = {Running(1).share("a").amount(4),
                                        Running(2).share("b").amount(4)};
  auto a_ahead_of_b = [&](int64_t weight_of_a, const std::vector<Running>& run) {
    const World world(cluster(weight_of_a), run);
    DecayedUsage usage(world.policy.share_count() * world.policy.family_count(), 0.0);
    usage[world.share("a") * world.policy.family_count()] = 1000.0;  // a used 10x what b did
    usage[world.share("b") * world.policy.family_count()] = 100.0;
    const std::vector<PendingJob> pending = {
        Pending(1).share("a").priority(0).request("p4", 1).resolve(world.policy),
        Pending(2).share("b").priority(0).request("p4", 1).resolve(world.policy)};
    const auto factors = prioritize(world.ledger(), usage, pending);
    return factors[0].priority > factors[1].priority;
  };
  EXPECT_FALSE(a_ahead_of_b(kBorrowWeightScale, running));      // 1000/4 > 100/4
  EXPECT_FALSE(a_ahead_of_b(9 * kBorrowWeightScale, running));  // 1000/36 > 100/4
  EXPECT_TRUE(a_ahead_of_b(11 * kBorrowWeightScale, running));  // 1000/44 < 100/4
  // Within quota (nothing runs), the share furthest below its quota goes first: the weight does
  // not enter: a and b stand equal.
  const World idle(cluster(11 * kBorrowWeightScale), {});
  const std::vector<PendingJob> within = {
      Pending(1).share("a").priority(0).request("p4", 1).resolve(idle.policy),
      Pending(2).share("b").priority(0).request("p4", 1).resolve(idle.policy)};
  const auto factors = prioritize(idle.ledger(), {}, within);
  EXPECT_TRUE(factors[0].within_quota && factors[1].within_quota);
  EXPECT_EQ(factors[0].priority, factors[1].priority);
}

// BorrowOrder=largest: a, which used ten times what b did, both at their quota of 8 GPUs in p5.
struct LargestFirst {
  World world;
  DecayedUsage usage;
  explicit LargestFirst(BorrowOrder order)
      : world(Cluster()
                  .unlisted_borrow()
                  .borrow_order(order)
                  .family("p5", Unit::Gpu, 32)
                  .share("a", "p5", 8)
                  .share("b", "p5", 8),
              {Running(1).share("a").family("p5").amount(8),
               Running(2).share("b").family("p5").amount(8)}),
        usage(world.policy.share_count() * world.policy.family_count(), 0.0) {
    usage[world.share("a")] = 1000.0;
    usage[world.share("b")] = 100.0;
  }
  std::vector<PriorityFactors> rank(const std::vector<Pending>& jobs) const {
    std::vector<PendingJob> pending;
    for (const Pending& job : jobs) pending.push_back(job.resolve(world.policy));
    return prioritize(world.ledger(), usage, pending);
  }
};

TEST(Order, BorrowOrderLargestPutsTheLargerBorrowerFirstWhateverItsShareUsed) {
  const std::vector<Pending> jobs = {Pending(1).share("a").priority(50).request("p5", 8),
                                     Pending(2).share("b").priority(50).request("p5", 2)};
  const auto fair = LargestFirst(BorrowOrder::FairShare).rank(jobs);
  EXPECT_LT(fair[0].priority, fair[1].priority);  // b used less
  EXPECT_EQ(fair[0].size_class, 0u);
  const auto largest = LargestFirst(BorrowOrder::Largest).rank(jobs);
  EXPECT_GT(largest[0].priority, largest[1].priority);
  EXPECT_FALSE(largest[0].within_quota || largest[1].within_quota);
  EXPECT_EQ(largest[0].size_class, 4u);  // 8 GPUs: bit length 4
  EXPECT_EQ(largest[1].size_class, 2u);  // 2 GPUs: bit length 2
  EXPECT_EQ(largest[0].priority, largest[0].size_class * kSizeClassWeight +
                                     largest[0].share_rank * kShareRankWeight +
                                     50 * kJobPriorityWeight + kNiceCenter);
  // Equal size classes: fair share decides (b first), as without the setting.
  const auto same = LargestFirst(BorrowOrder::Largest)
                        .rank({Pending(1).share("a").priority(50).request("p5", 4),
                               Pending(2).share("b").priority(50).request("p5", 6)});
  EXPECT_LT(same[0].priority, same[1].priority);
}

TEST(Order, BorrowOrderLargestLeavesTheQuotaTierAndTheUnlistedShareAsTheyAre) {
  // Nothing of c running: its 1-GPU job within quota goes before any borrower, with no size part.
  const World world(Cluster()
                        .unlisted_borrow()
                        .borrow_order(BorrowOrder::Largest)
                        .family("p5", Unit::Gpu, 32)
                        .share("a", "p5", 8)
                        .share("c", "p5", 8),
                    {Running(1).share("a").family("p5").amount(8)});
  const std::vector<PendingJob> pending = {
      Pending(1).share("c").request("p5", 1).resolve(world.policy),
      Pending(2).share("a").request("p5", 16).resolve(world.policy),
      Pending(3).share(std::string(kUnlistedShare)).request("p5", 16).resolve(world.policy),
      Pending(4).share("a").request("p5", 1).resolve(world.policy)};
  const auto f = prioritize(world.ledger(), {}, pending);
  EXPECT_TRUE(f[0].within_quota);
  EXPECT_EQ(f[0].size_class, 0u);
  EXPECT_GT(f[0].priority, f[1].priority);
  EXPECT_EQ(f[1].size_class, 5u);
  EXPECT_EQ(f[2].size_class, 0u);  // unlisted: after every share's borrowers, however large
  EXPECT_LT(f[2].priority, f[3].priority);
}

// A share's own order stands: its small job of high --share-priority is not passed by its own
// larger job of low priority (the small one borrows with the larger one's class); at equal
// priority and nice the larger goes first. Another share's job of a class between them sits
// between them.
TEST(Order, BorrowOrderLargestKeepsEachSharesOwnOrder) {
  const auto f =
      LargestFirst(BorrowOrder::Largest)
          .rank({Pending(1).share("a").priority(90).submitted(1).request("p5", 2),
                 Pending(2).share("a").priority(10).submitted(2).request("p5", 8),
                 Pending(3).share("a").priority(10).submitted(3).request("p5", 16),
                 Pending(4).share("b").priority(50).submitted(4).request("p5", 8),
                 Pending(5).share("a").priority(10).submitted(5).nice(100).request("p5", 16)});
  EXPECT_EQ(f[0].size_class, 5u);  // lifted to the class of job 3 (16 GPUs) behind it
  EXPECT_EQ(f[1].size_class, 5u);  // lifted by job 5, niced behind it
  EXPECT_EQ(f[2].size_class, 5u);
  EXPECT_EQ(f[4].size_class, 5u);
  EXPECT_EQ(f[3].size_class, 4u);
  EXPECT_GT(f[0].priority, f[1].priority);  // priority 90 before 10
  EXPECT_EQ(f[1].priority, f[2].priority);  // same standing: Slurm orders by age
  EXPECT_GT(f[2].priority, f[4].priority);  // nice 100 later
  EXPECT_GT(f[4].priority, f[3].priority);  // b's 8 GPUs after a's class-5 jobs
  // Without the 16-GPU jobs, a's 8-GPU job of priority 10 and b's 8-GPU job share class 4 and
  // fair share puts b's first; a's job of priority 90 stays ahead of a's own.
  const auto g = LargestFirst(BorrowOrder::Largest)
                     .rank({Pending(1).share("a").priority(90).submitted(1).request("p5", 2),
                            Pending(2).share("a").priority(10).submitted(2).request("p5", 8),
                            Pending(4).share("b").priority(50).submitted(4).request("p5", 8)});
  EXPECT_GT(g[0].priority, g[1].priority);
  EXPECT_GT(g[2].priority, g[1].priority);
}

// More standings than a borrower's rank holds under BorrowOrder=largest (255): the least used
// share keeps the top rank and the most used ones tie at 1.
TEST(Order, BorrowOrderLargestRanksTheBestSharesApartAndTiesTheLowest) {
  Cluster cluster = Cluster().borrow_order(BorrowOrder::Largest).family("p5", Unit::Gpu, 400);
  for (int s = 0; s < 300; ++s) cluster.share("s" + std::to_string(s), "p5", 1);
  const World world(cluster, {});
  DecayedUsage usage(world.policy.share_count() * world.policy.family_count(), 0.0);
  for (int s = 0; s < 300; ++s) usage[world.share("s" + std::to_string(s))] = 1.0 + s;
  const ShareRanks ranks = rank_shares(world.ledger(), usage);
  EXPECT_EQ(ranks.borrow[world.share("s0")], kMaxBorrowRankBySize);
  EXPECT_EQ(ranks.borrow[world.share("s1")], kMaxBorrowRankBySize - 1);
  EXPECT_EQ(ranks.borrow[world.share("s298")], 1u);
  EXPECT_EQ(ranks.borrow[world.share("s299")], 1u);
  EXPECT_EQ(ranks.within[world.share("s0")], ranks.within[world.share("s299")]);  // all idle
}

TEST(Order, SizeClassIsTheBitLengthUpToFifteen) {
  EXPECT_EQ(size_class(0), 1u);
  EXPECT_EQ(size_class(1), 1u);
  EXPECT_EQ(size_class(3), 2u);
  EXPECT_EQ(size_class(4), 3u);
  EXPECT_EQ(size_class(8), 4u);
  EXPECT_EQ(size_class(16383), 14u);
  EXPECT_EQ(size_class(16384), kMaxSizeClass);
  EXPECT_EQ(size_class(INT64_MAX), kMaxSizeClass);
}

TEST(Order, SameResultEveryTimeWhateverTheInputOrder) {
  const World world(Shares(), {Running(1).share("a").amount(2), Running(2).share("b").amount(5)});
  std::mt19937 rng(11);
  std::vector<PendingJob> pending;
  for (JobId id = 1; id <= 200; ++id) {
    pending.push_back(Pending(id)
                          .share(std::vector<std::string>{"a", "b", "z"}[rng() % 3])
                          .priority(int(rng() % 100))
                          .submitted(Time(rng() % 50))
                          .request(rng() % 2 ? "p4" : "p5", 1 + rng() % 3)
                          .request("p4", 1 + rng() % 3)
                          .resolve(world.policy));
  }
  const DecayedUsage usage(world.policy.share_count() * world.policy.family_count(), 7.0);
  const auto once = prioritize(world.ledger(), usage, pending);
  auto shuffled = pending;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const auto again = prioritize(world.ledger(), usage, shuffled);
  ASSERT_EQ(once.size(), pending.size());
  for (size_t i = 0; i < shuffled.size(); ++i) {
    const size_t at = shuffled[i].id - 1;
    EXPECT_EQ(again[i].priority, once[at].priority) << "job " << shuffled[i].id;
    EXPECT_GE(once[at].priority, 1u);
  }
}

// Share a has quota 4 in p4 and runs nothing: the jobs its quota holds, in the share's own order.
std::vector<bool> within_quota(const World& world, const std::vector<Pending>& jobs) {
  std::vector<PendingJob> pending;
  for (const Pending& job : jobs) pending.push_back(job.resolve(world.policy));
  std::vector<bool> out;
  for (const PriorityFactors& f : prioritize(world.ledger(), {}, pending))
    out.push_back(f.within_quota);
  return out;
}

TEST(Order, ABurstOfOneShareIsWithinQuotaOnlyAsFarAsTheQuotaHolds) {
  const World world(Shares(), {});
  std::vector<Pending> burst;
  for (JobId id = 1; id <= 6; ++id) burst.push_back(Pending(id).share("a").request("p4", 1));
  EXPECT_EQ(within_quota(world, burst), (std::vector<bool>{true, true, true, true, false, false}));
}

TEST(Order, TheShareRunningPartOfItsQuotaHasOnlyTheRestForItsQueue) {
  const World world(Shares(), {Running(1).share("a").amount(3)});
  EXPECT_EQ(within_quota(world, {Pending(2).share("a").request("p4", 1),
                                 Pending(3).share("a").request("p4", 1)}),
            (std::vector<bool>{true, false}));
}

TEST(Order, TheQuotaGoesInTheSharesOwnOrderNotTheInputOrder) {
  const World world(Shares(), {});
  // Job 1 is older but has a lower --share-priority: job 2 comes first in share a.
  EXPECT_EQ(within_quota(world, {Pending(1).share("a").priority(10).request("p4", 3),
                                 Pending(2).share("a").priority(90).request("p4", 3)}),
            (std::vector<bool>{false, true}));
  // Equal priorities: the older first, then the lower id.
  EXPECT_EQ(within_quota(world, {Pending(5).share("a").submitted(20).request("p4", 3),
                                 Pending(6).share("a").submitted(10).request("p4", 3),
                                 Pending(3).share("a").submitted(20).request("p4", 1)}),
            (std::vector<bool>{false, true, true}));
}

TEST(Order, AJobTooBigForWhatIsLeftEndsItsSharesFirstTier) {
  const World world(Shares(), {});
  // Job 2 does not fit what job 1 leaves of the quota of 4: it borrows, and job 3, smaller and of
  // lower --share-priority, does not pass it into the first tier.
  EXPECT_EQ(within_quota(world, {Pending(1).share("a").priority(90).request("p4", 3),
                                 Pending(2).share("a").priority(80).request("p4", 3),
                                 Pending(3).share("a").priority(70).request("p4", 1)}),
            (std::vector<bool>{true, false, false}));
  // Other shares' first tiers are their own.
  EXPECT_EQ(within_quota(world, {Pending(1).share("a").request("p4", 3),
                                 Pending(2).share("a").request("p4", 3),
                                 Pending(3).share("b").request("p4", 1)}),
            (std::vector<bool>{true, false, true}));
}

TEST(Order, AJobLargerThanTheWholeQuotaIsPassedOverAndEndsNothing) {
  const World world(Shares(), {});
  // Job 1 asks for more than share a's quota of 4: it can only ever borrow.
  EXPECT_EQ(within_quota(world, {Pending(1).share("a").priority(90).request("p4", 5),
                                 Pending(2).share("a").priority(80).request("p4", 4)}),
            (std::vector<bool>{false, true}));
}

TEST(Order, AJobWithinQuotaInAnotherFamilyEndsNothing) {
  const World world(Shares(), {});
  // Share b: quota 4 nodes in p4, 8 GPUs in p5. Job 2 does not fit what job 1 leaves in p4 but
  // is within quota in p5: job 3 is still within quota in p4. Job 4 borrows in p5, its only
  // family: job 5 does not pass it there.
  EXPECT_EQ(
      within_quota(world, {Pending(1).share("b").priority(90).request("p4", 3),
                           Pending(2).share("b").priority(80).request("p4", 3).request("p5", 6),
                           Pending(3).share("b").priority(70).request("p4", 1),
                           Pending(4).share("b").priority(60).request("p5", 4),
                           Pending(5).share("b").priority(50).request("p5", 1)}),
      (std::vector<bool>{true, true, true, false, false}));
}

TEST(Order, AJobSubmittedAfterItsSharesFirstBorrowerIsBehindIt) {
  const World world(Shares(), {});
  const std::vector<PendingJob> queue = {
      Pending(1).share("a").request("p4", 3).resolve(world.policy),
      Pending(2).share("a").request("p4", 3).resolve(world.policy)};
  const ShareRanks ranks = rank_shares(world.ledger(), {});
  const RankedQueue ranked = prioritize_queue(ranks, world.ledger(), queue);
  const PendingJob small = Pending(3).share("a").request("p4", 1).resolve(world.policy);
  EXPECT_FALSE(prioritize(ranks, world.ledger(), small, ranked.taken).within_quota);
}

TEST(Order, AJobThatCannotStartYetTakesNoQuotaFromTheJobsBehindIt) {
  const World world(Shares(), {});
  // Job 1 waits out its BeginTime (a requeued victim) or is held.
  EXPECT_EQ(within_quota(world, {Pending(1).share("a").priority(90).request("p4", 4).not_eligible(),
                                 Pending(2).share("a").priority(80).request("p4", 4)}),
            (std::vector<bool>{true, true}));
}

TEST(Order, EachSharesQueueTakesOnlyItsOwnQuota) {
  const World world(Shares(), {});
  EXPECT_EQ(
      within_quota(
          world, {Pending(1).share("a").request("p4", 4), Pending(2).share("b").request("p4", 4),
                  Pending(3).share("a").request("p4", 1), Pending(4).share("b").request("p4", 1)}),
      (std::vector<bool>{true, true, false, false}));
}

TEST(Order, AJobSubmittedAfterARankedQueueIsBehindItsShareUntilTheNextRanking) {
  const World world(Shares(), {});
  const std::vector<PendingJob> queue = {
      Pending(1).share("a").request("p4", 3).resolve(world.policy),
      Pending(2).share("b").request("p4", 4).resolve(world.policy)};
  const ShareRanks ranks = rank_shares(world.ledger(), {});
  const RankedQueue ranked = prioritize_queue(ranks, world.ledger(), queue);
  const PendingJob one = Pending(3).share("a").request("p4", 1).resolve(world.policy);
  const PendingJob two = Pending(4).share("a").request("p4", 2).resolve(world.policy);
  EXPECT_TRUE(prioritize(ranks, world.ledger(), one, ranked.taken).within_quota);
  EXPECT_FALSE(prioritize(ranks, world.ledger(), two, ranked.taken).within_quota);
  EXPECT_TRUE(prioritize(ranks, world.ledger(), two).within_quota);  // nothing ahead
}

TEST(Order, UsageOfAnotherSizeCountsAsNoHistory) {
  const World world(Shares(), {Running(1).share("a").amount(4), Running(2).share("b").amount(4)});
  const PendingJob job = Pending(1).share("a").request("p4", 1).resolve(world.policy);
  EXPECT_EQ(prioritize_one(world.ledger(), DecayedUsage{1.0, 2.0, 3.0}, job).priority,
            prioritize_one(world.ledger(), {}, job).priority);
}

}  // namespace
}  // namespace shareq::policy::testing
