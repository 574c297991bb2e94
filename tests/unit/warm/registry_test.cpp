// WarmPoolRegistry: pools made by ending jobs, expiry with time as an argument, the lifetime cap,
// reuse chains, node-down and takeover, reserve-mode accounting.
#include <gtest/gtest.h>

#include "warm/registry.hpp"
#include "warm_builders.hpp"

namespace shareq::warm::testing {
namespace {

struct EndCase {
  const char* name;
  EndCause cause;
  int64_t keep;
  bool makes_pool;
};

TEST(Registry, WhichEndingsMakeAPool) {
  const std::vector<EndCase> cases = {
      {"completed with keep-alive", EndCause::Completed, 900, true},
      {"failed by itself with keep-alive", EndCause::Failed, 900, true},
      {"completed without keep-alive", EndCause::Completed, 0, false},
      {"node failure", EndCause::NodeFail, 900, false},
      {"cancelled by an admin", EndCause::AdminCancel, 900, false},
      {"cancelled by the user", EndCause::UserCancel, 900, false},
      {"preempted", EndCause::Preempted, 900, false},
      {"time limit", EndCause::TimeLimit, 900, false},
  };
  for (const EndCase& c : cases) {
    SCOPED_TRACE(c.name);
    WarmPoolRegistry registry(Settings());
    auto end = registry.on_job_end(Ended(1).keep(c.keep), c.cause, 100);
    EXPECT_EQ(end.pool.has_value(), c.makes_pool);
    EXPECT_EQ(registry.pools().size(), c.makes_pool ? 1u : 0u);
  }
}

TEST(Registry, NewPoolRecordsItsJobOwnerNodesAndDirectory) {
  WarmPoolRegistry registry(Settings());
  const WarmPool pool = MakePool(registry, Ended(7).nodes({"n2", "n1", "n2"}).keep(900), 100);
  EXPECT_EQ(pool.id, 1u);
  EXPECT_EQ(pool.name(), "wp-1");
  EXPECT_EQ(pool.status, PoolStatus::Available);
  EXPECT_EQ(pool.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(pool.key.nodes, 2u);
  EXPECT_EQ(pool.user, "alice");
  EXPECT_EQ(pool.uid, 1001u);
  EXPECT_EQ(pool.account, "prodexp1");
  EXPECT_EQ(pool.image_digest, kImageA);
  EXPECT_EQ(pool.origin_job, 7u);
  EXPECT_EQ(pool.created, 100);
  EXPECT_EQ(pool.expires_at, 1000);
  EXPECT_EQ(pool.warm_dir, "/var/lib/shareq/warm/wp-1");
  EXPECT_EQ(registry.pool_of_node("n2")->id, 1u);
  EXPECT_EQ(registry.next_id(), 2u);
}

TEST(Registry, KeepAliveIsClampedToMaxKeepAlive) {
  WarmPoolRegistry registry(Settings());
  EXPECT_EQ(MakePool(registry, Ended(1).keep(999'999), 100).expires_at, 100 + 3600);
}

TEST(Registry, ExpiryHappensExactlyAtExpiresAt) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).keep(900), 100);
  EXPECT_TRUE(registry.expire(999).empty());
  EXPECT_NE(registry.match(Pending(2), 999), nullptr);
  EXPECT_EQ(registry.match(Pending(2), 1000), nullptr) << "expired pools never match";
  const std::vector<WarmPool> expired = registry.expire(1000);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].status, PoolStatus::Expired);
  EXPECT_EQ(expired[0].warm_dir, "/var/lib/shareq/warm/wp-1");
  EXPECT_TRUE(registry.pools().empty());
  EXPECT_TRUE(registry.expire(5000).empty()) << "an ended pool is returned once";
}

TEST(Registry, ReuseChainContinuesThePoolWithEachJobsKeepAlive) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).keep(900), 100);
  ASSERT_TRUE(registry.claim(1, Pending(2), 500));
  EXPECT_EQ(registry.find(1)->status, PoolStatus::InUse);
  EXPECT_EQ(registry.find(1)->current_job(), 2u);
  EXPECT_TRUE(registry.expire(5000).empty()) << "a pool in use never expires";
  auto end = registry.on_job_end(Ended(2).keep(300), EndCause::Failed, 5000);
  ASSERT_TRUE(end.pool);
  EXPECT_EQ(end.pool->status, PoolStatus::Reused);
  EXPECT_EQ(end.pool->expires_at, 5300);
  ASSERT_TRUE(registry.claim(1, Pending(3), 5100));
  end = registry.on_job_end(Ended(3).keep(600), EndCause::Completed, 6000);
  EXPECT_EQ(end.pool->reused_by, (std::vector<JobId>{2, 3}));
  EXPECT_EQ(end.pool->expires_at, 6600);
  EXPECT_EQ(end.pool->id, 1u) << "the same pool, its directory kept";
  EXPECT_EQ(registry.pools().size(), 1u);
}

TEST(Registry, LifetimeCapBoundsEveryExtension) {
  WarmPoolRegistry registry(Settings());  // max lifetime 10,000 s
  MakePool(registry, Ended(1).keep(3600), 0);
  ASSERT_TRUE(registry.claim(1, Pending(2), 100));
  auto end = registry.on_job_end(Ended(2).keep(3600), EndCause::Completed, 8000);
  EXPECT_EQ(end.pool->expires_at, 10'000) << "capped at created + MaxWarmPoolLifetime";
  ASSERT_TRUE(registry.claim(1, Pending(3), 9000));
  end = registry.on_job_end(Ended(3).keep(3600), EndCause::Completed, 10'500);
  EXPECT_FALSE(end.pool);
  ASSERT_EQ(end.ended.size(), 1u);
  EXPECT_EQ(end.ended[0].status, PoolStatus::Expired);
  EXPECT_NE(end.ended[0].end_reason.find("MaxWarmPoolLifetime"), std::string::npos);
}

TEST(Registry, ZeroLifetimeMakesNoPool) {
  WarmSettings settings = Settings();
  settings.max_lifetime_s = 0;
  WarmPoolRegistry registry(settings);
  EXPECT_FALSE(registry.on_job_end(Ended(1), EndCause::Completed, 100).pool);
}

struct ReuseEndCase {
  const char* name;
  EndCause cause;
  int64_t keep;
  PoolStatus ended_as;
};

TEST(Registry, ReusingJobThatEndsOtherwiseEndsThePool) {
  const std::vector<ReuseEndCase> cases = {
      {"no keep-alive", EndCause::Completed, 0, PoolStatus::Expired},
      {"user cancel", EndCause::UserCancel, 900, PoolStatus::Expired},
      {"node failure", EndCause::NodeFail, 900, PoolStatus::Terminated},
      {"admin cancel", EndCause::AdminCancel, 900, PoolStatus::Terminated},
  };
  for (const ReuseEndCase& c : cases) {
    SCOPED_TRACE(c.name);
    WarmPoolRegistry registry(Settings());
    MakePool(registry, Ended(1), 100);
    ASSERT_TRUE(registry.claim(1, Pending(2), 200));
    auto end = registry.on_job_end(Ended(2).keep(c.keep), c.cause, 300);
    EXPECT_FALSE(end.pool);
    ASSERT_EQ(end.ended.size(), 1u);
    EXPECT_EQ(end.ended[0].status, c.ended_as);
    EXPECT_TRUE(registry.pools().empty());
  }
}

TEST(Registry, ContinuingWithAnotherImageReportsTheImageToUnpin) {
  WarmSettings settings = Settings();
  settings.match = {MatchField::User};
  WarmPoolRegistry registry(settings);
  MakePool(registry, Ended(1).image(kImageA), 100);
  ASSERT_TRUE(registry.claim(1, Pending(2).image(kImageB), 200));
  auto end = registry.on_job_end(Ended(2).image(kImageB), EndCause::Completed, 300);
  EXPECT_EQ(end.pool->image_digest, kImageB);
}

TEST(Registry, ClaimRefusesWhatItMustNot) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1), 100);
  EXPECT_FALSE(registry.claim(9, Pending(2), 200)) << "no such pool";
  EXPECT_FALSE(registry.claim(1, Pending(2).user("bob"), 200)) << "another user's pool";
  EXPECT_FALSE(registry.claim(1, Pending(2), 1000)) << "expired";
  ASSERT_TRUE(registry.claim(1, Pending(2), 200));
  const Result<WarmPool> again = registry.claim(1, Pending(3), 201);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("in use by job 2"), std::string::npos);
}

TEST(Registry, MatchChoosesDeterministically) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"a1", "a2"}).keep(900), 100);  // wp-1 until 1000
  MakePool(registry, Ended(2).nodes({"b1", "b2"}).keep(300), 100);  // wp-2 until 400
  MakePool(registry, Ended(3).nodes({"c1", "c2"}).keep(300), 100);  // wp-3 until 400
  MakePool(registry, Ended(4).nodes({"d1", "d2"}).partition("p5").keep(600), 100);
  EXPECT_EQ(registry.match(Pending(9), 200)->id, 2u) << "soonest expiry, then lower id";
  EXPECT_EQ(registry.match(Pending(9).partitions({"p5", "p4"}), 200)->id, 4u)
      << "the job's first partition first";
  const std::vector<std::string> free = {"a1", "a2", "c1", "c2"};
  EXPECT_EQ(registry.match(Pending(9), 200, &free)->id, 3u) << "only pools whose nodes are free";
  EXPECT_EQ(registry.match(Pending(9).node_count(3), 200), nullptr);
}

TEST(Registry, NodeDownTerminatesEveryPoolOnIt) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);
  MakePool(registry, Ended(2).nodes({"n3"}), 100);
  ASSERT_TRUE(registry.claim(2, Pending(5).node_count(1), 150));
  EXPECT_TRUE(registry.on_node_down("n9").empty());
  const std::vector<WarmPool> ended = registry.on_node_down("n3");
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].status, PoolStatus::Terminated) << "even while in use";
  EXPECT_EQ(ended[0].end_reason, "node n3 went down");
  EXPECT_EQ(Ids(registry.on_node_down("n2")), std::vector<PoolId>{1});
  EXPECT_TRUE(registry.pools().empty());
}

TEST(Registry, TerminateByAdmin) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1), 100);
  EXPECT_FALSE(registry.terminate(5, "admin"));
  const auto ended = registry.terminate(1, "admin ended it");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->status, PoolStatus::Terminated);
  EXPECT_EQ(ended->end_reason, "admin ended it");
}

TEST(Registry, NonMatchingJobTakingWarmNodesEndsTheirPools) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);
  MakePool(registry, Ended(2).nodes({"n3", "n4"}), 100);
  const std::vector<WarmPool> ended = registry.on_nodes_taken(9, {"n2", "n7"});
  EXPECT_EQ(Ids(ended), std::vector<PoolId>{1});
  EXPECT_EQ(ended[0].status, PoolStatus::Terminated);
  EXPECT_EQ(ended[0].end_reason, "nodes taken by job 9");
  EXPECT_NE(registry.find(2), nullptr);
}

TEST(Registry, NewPoolOnNodesOfAnotherEndsTheOldOne) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);
  auto end =
      registry.on_job_end(Ended(2).user("bob").nodes({"n2", "n3"}), EndCause::Completed, 200);
  EXPECT_EQ(Ids(end.ended), std::vector<PoolId>{1});
  EXPECT_EQ(end.pool->id, 2u);
  EXPECT_EQ(registry.pool_of_node("n2")->id, 2u) << "a node is in one live pool";
}

TEST(Registry, ReserveModeCountsWarmNodesAgainstTheOwner) {
  WarmPoolRegistry reserve(Settings(WarmPoolMode::Reserve));
  MakePool(reserve, Ended(1).nodes({"n2", "n1"}), 100);
  MakePool(reserve, Ended(2).account("prodexp2").nodes({"n3"}), 100);
  EXPECT_EQ(reserve.nodes_reserved_for("prodexp1", 200), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(reserve.nodes_reserved_for("prodexp2", 200), std::vector<std::string>{"n3"});
  EXPECT_TRUE(reserve.nodes_reserved_for("prodexp1", 1000).empty()) << "expired";
  WarmPoolRegistry prefer(Settings(WarmPoolMode::Prefer));
  MakePool(prefer, Ended(1), 100);
  EXPECT_TRUE(prefer.nodes_reserved_for("prodexp1", 200).empty());
}

TEST(Registry, ReservedPoolsAreTheWaitingOnesUntilClaimedOrExpired) {
  WarmPoolRegistry reserve(Settings(WarmPoolMode::Reserve));
  MakePool(reserve, Ended(1).nodes({"n1"}), 100);
  MakePool(reserve, Ended(2).nodes({"n2"}), 100);
  const auto ids = [&](Time now) {
    std::vector<PoolId> out;
    for (const WarmPool* pool : reserve.reserved(now)) out.push_back(pool->id);
    return out;
  };
  EXPECT_EQ(ids(200), (std::vector<PoolId>{1, 2}));
  // A matching job claims pool 1: its nodes are now the job's usage, not the pool's.
  ASSERT_TRUE(reserve.claim(1, Pending(9).node_count(1), 200));
  EXPECT_EQ(ids(200), std::vector<PoolId>{2});
  // It ends by itself with keep-alive: the pool waits (Reused) and holds its nodes again.
  reserve.on_job_end(Ended(9).nodes({"n1"}), EndCause::Completed, 300);
  EXPECT_EQ(ids(300), (std::vector<PoolId>{1, 2}));
  EXPECT_TRUE(ids(100000).empty()) << "expired pools hold nothing";
  WarmPoolRegistry prefer(Settings(WarmPoolMode::Prefer));
  MakePool(prefer, Ended(1), 100);
  EXPECT_TRUE(prefer.reserved(200).empty());
}

TEST(Registry, AJobStartingOnANodeTakesTheDirectoriesOfPoolsThatEndedEarly) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);  // until 1000
  MakePool(registry, Ended(2).nodes({"n3"}), 100);
  registry.terminate(1, "admin");
  registry.on_node_down("n3");
  EXPECT_EQ(registry.take_ended_early({"n2", "n3", "n9"}, 500),
            (std::vector<std::string>{"warm-1", "warm-2"}));
  EXPECT_TRUE(registry.take_ended_early({"n2", "n3"}, 500).empty()) << "handed out once";
  EXPECT_EQ(registry.take_ended_early({"n1"}, 500), std::vector<std::string>{"warm-1"});
  EXPECT_TRUE(registry.ended_early().empty());
}

TEST(Registry, DirectoriesPastTheirDeadlineAreLeftToTheNodesSweep) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1"}), 100);             // until 1000
  MakePool(registry, Ended(2).nodes({"n2"}).keep(2000), 100);  // until 2100
  registry.terminate(1, "admin");
  registry.terminate(2, "admin");
  EXPECT_TRUE(registry.take_ended_early({"n1"}, 1000).empty());
  EXPECT_TRUE(registry.expire(1000).empty());
  EXPECT_EQ(registry.ended_early().size(), 1u) << "n2's directory is before its deadline";
  MakePool(registry, Ended(3).nodes({"n3"}), 3000);  // until 3900
  EXPECT_EQ(Ids(registry.expire(3900)), std::vector<PoolId>{3});
  EXPECT_TRUE(registry.ended_early().empty()) << "expiry on time is no early end";
}

TEST(Registry, NewSettingsApplyToNewPoolsOnly) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(1).nodes({"n1"}), 100);
  WarmSettings settings = Settings();
  settings.match = {MatchField::Account};
  settings.warm_dir_root = "/scratch/warm";
  registry.set_settings(settings);
  const WarmPool second = MakePool(registry, Ended(2).nodes({"n2"}), 100);
  EXPECT_EQ(registry.find(1)->warm_dir, "/var/lib/shareq/warm/wp-1");
  EXPECT_EQ(second.warm_dir, "/scratch/warm/wp-2");
  EXPECT_FALSE(matches(*registry.find(1), Pending(3).user("bob").node_count(1)));
  EXPECT_TRUE(matches(second, Pending(3).user("bob").node_count(1)));
}

}  // namespace
}  // namespace shareq::warm::testing
