// The tool's view of slurmctld (ClusterState): reserved warm pools from the nodes' Extra,
// completing nodes and reclaims in flight, translated into the same ControllerView that
// slurmctld's select plugin decides on, and what `shareq status` and `shareq why` say from it.
#include "cluster_state.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "../test_configs.hpp"
#include "policy/held_capacity.hpp"
#include "status_report.hpp"
#include "tool_builders.hpp"
#include "why_report.hpp"

namespace shareq::tool {
namespace {

using testing::Job;

constexpr int64_t kNow = 1'700'000'000;

// p4: prodexp1 owns 1 node and may not borrow; prodexp2 owns 3. p5: 32 GPUs, research 16 (may
// borrow 16), prodexp2 16. Warm pools reserve their nodes.
const std::string kConf =
    "Family=p4 Partitions=p4 Capacity=node=4\n"
    "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
    "Share=ProdExp1 Family=p4 Quota=node=1 BorrowLimit=node=0\n"
    "Share=ProdExp2 Family=p4 Quota=node=3\n"
    "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"
    "Share=Research Family=p5 Quota=gres/gpu=16 BorrowLimit=gres/gpu=16\n"
    "ReclaimMinRuntime=0\nReclaimAfter=0\n";
const Config kReserve = shareq::testing::must_parse(kConf + "WarmPoolMode=reserve\n");
const Config kPrefer = shareq::testing::must_parse(kConf + "WarmPoolMode=prefer\n");

NodeInfo node(std::string name, std::vector<std::string> partitions, std::string extra = "",
              int64_t gpus = 0) {
  NodeInfo n;
  n.name = std::move(name);
  n.partitions = std::move(partitions);
  n.extra = std::move(extra);
  n.gpus = gpus;
  return n;
}

std::string waiting_pool(int id, const std::string& owner, int64_t until,
                         const std::string& status = "available") {
  return "shareq:wp-" + std::to_string(id) + "," + status + ",owner=" + owner +
         ",until=" + std::to_string(until) + ",key=image=none,account=prodexp1,user=alice";
}

std::vector<NodeInfo> p4_nodes(const std::string& extra_on_n3) {
  return {node("p4n1", {"p4"}), node("p4n2", {"p4"}), node("p4n3", {"p4"}, extra_on_n3),
          node("p4n4", {"p4"})};
}

ClusterData data(std::vector<JobInfo> jobs, std::vector<NodeInfo> nodes, int64_t allowance = 0) {
  return ClusterData{std::move(jobs), std::move(nodes), allowance, kNow};
}

const policy::ShareId kProdExp1 = 0;
const policy::FamilyId kP4 = 0;
const policy::FamilyId kP5 = 1;

// ---- reserved warm pools ---------------------------------------------------------------------

TEST(ClusterStateReservedPools, AWaitingPoolHoldsItsNodesForItsOwnersShareAsSlurmctldCountsIt) {
  const ClusterState state(kReserve,
                           data({}, p4_nodes(waiting_pool(7, "alice/prodexp1", kNow + 300))));
  ASSERT_EQ(state.reserved_pools().size(), 1u);
  EXPECT_EQ(state.reserved_pools()[0].name, "wp-7");
  EXPECT_EQ(state.reserved_pools()[0].nodes, std::vector<std::string>{"p4n3"});
  // The one conversion slurmctld uses too (ctld::held_capacity calls it).
  const auto expected = policy::held_capacity(state.policy(), 7, "prodexp1", "p4", 1, 0);
  ASSERT_TRUE(expected.has_value());
  ASSERT_EQ(state.view().held.size(), 1u);
  EXPECT_EQ(state.view().held[0], *expected);
  EXPECT_EQ(state.view().held[0], (policy::HeldCapacity{7, kProdExp1, kP4, 1}));
  EXPECT_EQ(state.ledger().usage(kProdExp1, kP4), 1);
  EXPECT_EQ(state.ledger().used(kP4), 1);
  EXPECT_TRUE(state.problems().empty());
}

TEST(ClusterStateReservedPools, AGpuPoolHoldsItsNodesConfiguredGpus) {
  const std::string extra = waiting_pool(3, "bob/research", kNow + 60, "reused");
  const ClusterState state(kReserve,
                           data({}, {node("p5n1", {"p5"}, extra, 8), node("p5n2", {"p5"}, extra, 8),
                                     node("p5n3", {"p5"}, "", 8)}));
  ASSERT_EQ(state.view().held.size(), 1u);
  EXPECT_EQ(state.view().held[0].family, kP5);
  EXPECT_EQ(state.view().held[0].amount, 16);
  EXPECT_EQ(state.ledger().usage(*state.policy().share_id("research"), kP5), 16);
}

TEST(ClusterStateReservedPools, OnlyWaitingUnexpiredPoolsInReserveModeHoldAnything) {
  const auto held = [](const Config& config, const std::string& extra) {
    const ClusterState state(config, data({}, p4_nodes(extra)));
    return state.view().held.size();
  };
  EXPECT_EQ(held(kReserve, waiting_pool(1, "alice/prodexp1", kNow + 1)), 1u);
  EXPECT_EQ(held(kPrefer, waiting_pool(1, "alice/prodexp1", kNow + 1)), 0u);
  EXPECT_EQ(held(kReserve, waiting_pool(1, "alice/prodexp1", kNow)), 0u);  // expired
  EXPECT_EQ(held(kReserve, "shareq:wp-1,in-use,owner=alice/prodexp1,job=12,key=any"), 0u);
  EXPECT_EQ(held(kReserve, "shareq:end"), 0u);
  EXPECT_EQ(held(kReserve, "rack=12"), 0u);                                       // an admin's own
  EXPECT_EQ(held(kReserve, waiting_pool(1, "carol/nosuchshare", kNow + 9)), 0u);  // not governed
}

TEST(ClusterStateReservedPools, AnUnreadableExtraOrAnAmbiguousFamilyIsAProblemNotAGuess) {
  const ClusterState bad(kReserve, data({}, p4_nodes("shareq:wp-1,available")));
  EXPECT_TRUE(bad.view().held.empty());
  ASSERT_EQ(bad.problems().size(), 1u);
  EXPECT_NE(bad.problems()[0].find("node p4n3: "), std::string::npos) << bad.problems()[0];

  // A node in partitions of two families: the Extra does not name the pool's partition.
  const ClusterState both(
      kReserve, data({}, {node("x1", {"p4", "p5"}, waiting_pool(2, "bob/prodexp2", kNow + 9), 8)}));
  EXPECT_TRUE(both.view().held.empty());
  ASSERT_EQ(both.problems().size(), 1u);
  EXPECT_EQ(both.problems()[0],
            "warm pool wp-2 on x1: its nodes are in partitions p4 (family p4) and p5 (family p5); "
            "not counted, since the Extra does not say which one it holds");
}

TEST(ClusterStateReservedPools, TheHeldPoolDecidesAsInSlurmctld) {
  // prodexp1's one node of quota is warm on p4n3: its plain job waits at its borrow limit, as
  // slurmctld says; without the pool in the view the tool would say it starts.
  const std::vector<JobInfo> jobs = {
      Job(5).share("prodexp1").nodes(1).partitions({"p4"}).pending(kNow - 10)};
  const ClusterState with_pool(kReserve,
                               data(jobs, p4_nodes(waiting_pool(7, "alice/prodexp1", kNow + 300))));
  const policy::Decision d = with_pool.decide(*with_pool.pending_job(5), kP4, kNow);
  EXPECT_EQ(d.verdict, policy::Verdict::Wait);
  EXPECT_EQ(d.reason, policy::WaitReason::ShareAtBorrowLimit);
  // The controller's own view, built by hand as job_test_hook.cpp builds it.
  const policy::Ledger ledger(with_pool.policy(), {}, with_pool.view().held);
  const policy::ControllerView controller{ledger, {}, with_pool.view().held, {}, 0};
  EXPECT_EQ(policy::decide(controller, *with_pool.pending_job(5), kP4, kNow).words, d.words);
  EXPECT_NE(explain_job(with_pool, 5, kNow)
                .find("  decision:   waits; slurmctld's reason: " + d.words + "\n"),
            std::string::npos)
      << explain_job(with_pool, 5, kNow);
  EXPECT_EQ(with_pool.next_to_start(kP4, kNow), nullptr);

  const ClusterState no_pool(kReserve, data(jobs, p4_nodes("")));
  EXPECT_EQ(no_pool.decide(*no_pool.pending_job(5), kP4, kNow).verdict, policy::Verdict::Start);
  ASSERT_NE(no_pool.next_to_start(kP4, kNow), nullptr);
  EXPECT_EQ(no_pool.next_to_start(kP4, kNow)->id, 5u);
}

TEST(ClusterStateReservedPools, StatusCountsReservedPoolsInUsageAsTheLedgerDoes) {
  const ClusterState state(
      kReserve,
      data({Job(1).share("prodexp2").nodes(1).partitions({"p4"}).running(kNow - 100, "p4n1"),
            Job(2).share("prodexp1").nodes(1).partitions({"p4"}).pending(kNow - 10)},
           p4_nodes(waiting_pool(7, "alice/prodexp1", kNow + 300))));
  const FamilyStatus p4 = family_status(state, std::string("p4")).at(0);
  EXPECT_EQ(p4.used, 2);
  EXPECT_EQ(p4.idle, 2);
  const ShareStatus& prodexp1 = p4.shares.at(0);
  ASSERT_EQ(prodexp1.share, "prodexp1");
  EXPECT_EQ(prodexp1.usage, 1);
  EXPECT_EQ(prodexp1.reserved, 1);
  EXPECT_EQ(prodexp1.running_jobs, 0);
  EXPECT_FALSE(p4.next_job.has_value());  // job 2 waits at prodexp1's borrow limit
  const std::string text = format_status({p4});
  EXPECT_NE(text.find("next to start in p4: none (every pending job waits)\n"), std::string::npos)
      << text;
  EXPECT_NE(format_status_json({p4}).find("\"usage\":1,"), std::string::npos);
  EXPECT_NE(format_status_json({p4}).find("\"reserved\":1}"), std::string::npos);
  EXPECT_NE(format_status_json({p4}).find("\"next_job\":null"), std::string::npos);
}

// ---- completing nodes ------------------------------------------------------------------------

// Research fills p5 (16 within quota, 16 borrowed); prodexp2's job 9 (8 GPUs, within quota) is
// pending; research's job 1 ended at `ended` and its node p5n1 is still completing.
ClusterData completing_p5(int64_t ended, bool node_completing) {
  JobInfo ended_job = Job(1).share("research").gpus(8).partitions({"p5"});
  ended_job.completing = true;
  ended_job.end_time = ended;
  ended_job.node_list = "p5n1";
  ended_job.node_names = {"p5n1"};
  std::vector<JobInfo> jobs = {
      ended_job, Job(2).share("research").gpus(8).partitions({"p5"}).running(kNow - 900, "p5n2"),
      Job(3).share("research").gpus(8).partitions({"p5"}).running(kNow - 900, "p5n3"),
      Job(4).share("research").gpus(8).partitions({"p5"}).running(kNow - 900, "p5n4"),
      Job(9).share("prodexp2").gpus(8).partitions({"p5"}).pending(kNow - 5)};
  std::vector<NodeInfo> nodes;
  for (const char* name : {"p5n1", "p5n2", "p5n3", "p5n4"})
    nodes.push_back(node(name, {"p5"}, "", 8));
  nodes[0].completing = node_completing;
  return data(std::move(jobs), std::move(nodes), 35);
}

TEST(ClusterStateCompleting, ACompletingNodeIsWaitedForWithinSlurmctldsBound) {
  const ClusterState state(kReserve, completing_p5(kNow - 3, true));
  EXPECT_EQ(state.job_end_allowance_s(), 35);
  EXPECT_EQ(state.view().completing_bound_s, 35);
  ASSERT_EQ(state.view().completing.size(), 1u);
  EXPECT_EQ(state.view().completing[0], (policy::CompletingNode{kP5, kNow - 3}));
  const policy::Decision d = state.decide(*state.pending_job(9), kP5, kNow);
  EXPECT_EQ(d.verdict, policy::Verdict::Start);
  EXPECT_EQ(d.no_room, policy::kAwaitingCompletingNode);
  EXPECT_TRUE(d.reclaim_to_fit.empty());
  EXPECT_NE(
      explain_job(state, 9, kNow)
          .find("  decision:   starts once a node has room; until then Slurm's own reason, or "
                "after a try that found none, slurmctld's reason: shareq: waiting for a "
                "node to finish cleaning up after a job that ended\n"),
      std::string::npos)
      << explain_job(state, 9, kNow);

  // Past the bound it holds nothing back: the job may reclaim to fit.
  const policy::Decision late = state.decide(*state.pending_job(9), kP5, kNow - 3 + 35);
  EXPECT_TRUE(late.no_room.empty());
  EXPECT_FALSE(late.reclaim_to_fit.empty());
}

TEST(ClusterStateCompleting, OnlyNodesStillCompletingInTheJobsPartitionsCount) {
  const ClusterState done(kReserve, completing_p5(kNow - 3, false));
  EXPECT_TRUE(done.view().completing.empty());
  EXPECT_TRUE(done.decide(*done.pending_job(9), kP5, kNow).no_room.empty());

  // Without the allowance (jobs-only state) nothing completing is ever waited for.
  ClusterData d = completing_p5(kNow - 3, true);
  JobInfo other = Job(10).share("prodexp2").nodes(1).partitions({"p4"}).pending(kNow);
  d.jobs.push_back(other);
  const ClusterState state(kReserve, std::move(d));
  EXPECT_TRUE(state.completing_for(*state.pending_job(10)).empty());
  EXPECT_EQ(state.completing_for(*state.pending_job(9)).size(), 1u);
}

// ---- reclaims in flight ----------------------------------------------------------------------

TEST(ClusterStateClaims, AJobAwaitingItsVictimsCountsAsRunningAndTheyAsGone) {
  // research borrows 16 of p5 with jobs 3 and 4; prodexp2's job 9 reclaimed job 4 (still in its
  // grace time, running) and waits for it to end; prodexp2's job 10 would now borrow.
  const std::vector<JobInfo> jobs = {
      Job(1).share("research").gpus(16).partitions({"p5"}).running(kNow - 900, "p5n[1-2]"),
      Job(2).share("prodexp2").gpus(8).partitions({"p5"}).running(kNow - 900, "p5n3"),
      Job(4)
          .share("research")
          .gpus(8)
          .partitions({"p5"})
          .running(kNow - 60, "p5n4")
          .comment("shareq: preempted by job 9 (reclaim): share prodexp2 takes back its quota"),
      Job(9)
          .share("prodexp2")
          .gpus(8)
          .partitions({"p5"})
          .pending(kNow - 20)
          .reason("shareq: waiting for the jobs it preempted to end"),
      Job(10).share("prodexp2").gpus(8).partitions({"p5"}).pending(kNow - 10)};
  std::vector<JobInfo> with_preempt_time = jobs;
  with_preempt_time[2].preempt_time = kNow - 15;
  const ClusterState state(kReserve, data(with_preempt_time, {}));
  ASSERT_EQ(state.claims().size(), 1u);
  EXPECT_EQ(
      state.claims()[0],
      (policy::ReclaimClaim{9, *state.policy().share_id("prodexp2"), kP5, 8, 50, kNow - 15, {4}}));
  EXPECT_EQ(state.running_job(4), nullptr);
  ASSERT_NE(state.running_job(9), nullptr);
  EXPECT_EQ(state.running_job(9)->amount, 8);
  EXPECT_EQ(state.ledger().usage(*state.policy().share_id("prodexp2"), kP5), 16);
  // Job 10 would borrow where nothing is left: it waits, and job 9 starts next.
  EXPECT_EQ(state.decide(*state.pending_job(10), kP5, kNow).verdict, policy::Verdict::Wait);
  ASSERT_NE(state.next_to_start(kP5, kNow), nullptr);
  EXPECT_EQ(state.next_to_start(kP5, kNow)->id, 9u);
  EXPECT_NE(explain_job(state, 4, kNow).find("preempted by job 9, which waits for it to end"),
            std::string::npos)
      << explain_job(state, 4, kNow);
  EXPECT_NE(explain_job(state, 9, kNow)
                .find("1st of 2 pending jobs in p5 (Slurm priority 100); "
                      "it starts next"),
            std::string::npos)
      << explain_job(state, 9, kNow);

  // The same jobs without the reason and without a preemption signal: no claim, job 10
  // reclaims job 4 itself.
  std::vector<JobInfo> no_claim = jobs;
  no_claim[3].reason = "Priority";
  const ClusterState plain(kReserve, data(no_claim, {}, 35));
  EXPECT_TRUE(plain.claims().empty());
  EXPECT_FALSE(plain.pending_job(9)->awaiting_victims);
  EXPECT_EQ(plain.decide(*plain.pending_job(10), kP5, kNow).verdict, policy::Verdict::Preempt);
}

TEST(ClusterStateClaims, ASignalledVictimMakesAClaimWhateverTheReasonUntilItsLifetimeEnds) {
  // Slurm's own reason ("Resources") on the claimant, as after a backfill pass: the victim's
  // PreemptTime and SystemComment say the reclaim is in flight, for PreemptGraceTime (0 here) +
  // the allowance (35 s), as slurmctld keeps the claim.
  const auto state_with_signal_at = [](int64_t preempt_time) {
    JobInfo victim = Job(4)
                         .share("research")
                         .gpus(8)
                         .partitions({"p5"})
                         .running(kNow - 60, "p5n4")
                         .comment(
                             "shareq: preempted by job 9 (reclaim): share prodexp2 takes "
                             "back its quota in family p5");
    victim.preempt_time = preempt_time;
    return std::make_unique<ClusterState>(
        kReserve,
        data({Job(1).share("research").gpus(24).partitions({"p5"}).running(kNow - 900, "p5n1"),
              victim,
              Job(9)
                  .share("prodexp2")
                  .gpus(8)
                  .partitions({"p5"})
                  .pending(kNow - 20)
                  .reason("Resources")},
             {}, 35));
  };
  const auto live = state_with_signal_at(kNow - 35);
  ASSERT_EQ(live->claims().size(), 1u);
  EXPECT_TRUE(live->pending_job(9)->awaiting_victims);
  EXPECT_EQ(live->running_job(4), nullptr);
  // The victim still runs (signalled, not yet ended): job 9 waits for it, as slurmctld has it.
  EXPECT_TRUE(live->pending_job(9)->victims_running);
  const policy::Decision d = live->decide(*live->pending_job(9), kP5, kNow);
  EXPECT_EQ(d.verdict, policy::Verdict::Wait);
  EXPECT_EQ(d.words, std::string("shareq: ") + policy::kAwaitingVictims);

  const auto expired = state_with_signal_at(kNow - 36);
  EXPECT_TRUE(expired->claims().empty());
  EXPECT_FALSE(expired->pending_job(9)->awaiting_victims);
  EXPECT_NE(expired->running_job(4), nullptr);
}

TEST(ClusterStateQueue, TheQueueIsSlurmsOrderAndHeldJobsAreLeftOut) {
  const ClusterState state(
      kReserve,
      data({Job(1).share("prodexp2").nodes(1).partitions({"p4"}).slurm_priority(10).pending(),
            Job(2).share("prodexp2").nodes(1).partitions({"p4"}).slurm_priority(30).pending(),
            Job(3).share("prodexp2").nodes(1).partitions({"p4"}).slurm_priority(30).pending(),
            // held: Slurm priority 0
            Job(4).share("prodexp2").nodes(1).partitions({"p4"}).pending().slurm_priority(0)},
           p4_nodes("")));
  std::vector<uint32_t> order;
  for (const JobInfo* j : state.queue(kP4)) order.push_back(j->id);
  EXPECT_EQ(order, (std::vector<uint32_t>{2, 3, 1}));
  EXPECT_EQ(state.next_to_start(kP4, kNow)->id, 2u);
}

}  // namespace
}  // namespace shareq::tool
