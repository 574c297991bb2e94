// decide(): every outcome of one decision over one snapshot, including the cases that only the
// cluster tests reached while the order lived in the select shim, and the README's worked
// example (Figures 1 and 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>

#include "policy/decision.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

constexpr Time kNow = 10'000;

// A snapshot built from a World, with the extras a test sets.
struct Snapshot {
  World world;
  std::vector<HeldCapacity> held;
  std::unordered_map<JobId, uint64_t> pool_of;  // pending job -> the reserved pool it matches
  std::vector<JobId> in_flight;                 // pending jobs awaiting their victims
  std::vector<JobId> victims_running;           // ... of which one victim still runs
  std::vector<CompletingNode> completing;

  [[nodiscard]] Decision decide(const Pending& pending, Time now = kNow) const {
    const Ledger ledger(world.policy, world.running, held);
    const ControllerView view{ledger, world.running, held, completing, 30};
    PendingJob job = pending.resolve(world.policy);
    if (const auto pool = pool_of.find(job.id); pool != pool_of.end()) {
      job.reserved_pool = pool->second;
    }
    job.awaiting_victims = std::find(in_flight.begin(), in_flight.end(), job.id) != in_flight.end();
    job.victims_running =
        std::find(victims_running.begin(), victims_running.end(), job.id) != victims_running.end();
    return policy::decide(view, job, world.family("p4"), now);
  }
  [[nodiscard]] HeldCapacity pool(uint64_t id, const std::string& share, int64_t amount) const {
    return {id, world.share(share), world.family("p4"), amount};
  }
};

Snapshot With(const Cluster& cluster, const std::vector<Running>& running) {
  return Snapshot{World(cluster, running), {}, {}, {}, {}, {}};
}

// a borrows one node: it runs 3 of the 4 (the latest started last); b runs 1.
Snapshot ABorrowsOne() {
  return With(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                         Running(3).share("a").started(300), Running(4).share("b").started(400)});
}

std::vector<JobId> victim_ids(const Decision& d) {
  std::vector<JobId> out;
  for (const Victim& v : d.victims) out.push_back(v.id);
  return out;
}

TEST(Decide, AJobLargerThanTheFamilyWaitsForever) {
  const Decision d = With(EvenAB(), {}).decide(Pending(10).share("a").request("p4", 5));
  EXPECT_EQ(d.verdict, Verdict::Wait);
  EXPECT_EQ(d.reason, WaitReason::LargerThanFamily);
  EXPECT_FALSE(d.words.empty());
}

TEST(Decide, AShareWithoutQuotaOrAJobWithoutARequestThereWaits) {
  const Snapshot s =
      With(Cluster().family("p4", Unit::Node, 4).share("a", "p4", 4).share("c", "p5", 1), {});
  const Decision no_quota = s.decide(Pending(10).share("c").request("p4", 1));
  EXPECT_EQ(no_quota.verdict, Verdict::Wait);
  EXPECT_EQ(no_quota.reason, WaitReason::NoQuotaInFamily);
  const Decision no_request = s.decide(Pending(11).share("a"));
  EXPECT_EQ(no_request.verdict, Verdict::Wait);
  EXPECT_EQ(no_request.reason, WaitReason::NoQuotaInFamily);
}

TEST(Decide, AJobThatFitsStartsAndOnlyWithinQuotaMayReclaimToFit) {
  const Snapshot s =
      With(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                      Running(3).share("a").started(300)});
  const Decision owner = s.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(owner.verdict, Verdict::Start);
  EXPECT_TRUE(owner.within_quota);
  EXPECT_EQ(owner.reclaim_to_fit, std::vector<JobId>{3});  // a's borrowed job, if no node fits
  EXPECT_TRUE(owner.victims.empty());

  const Decision borrower = s.decide(Pending(11).share("a").request("p4", 1));
  EXPECT_EQ(borrower.verdict, Verdict::Start);
  EXPECT_FALSE(borrower.within_quota);
  EXPECT_TRUE(borrower.reclaim_to_fit.empty());
}

TEST(Decide, ANodeStillCompletingAJobIsWaitedForWithinItsBound) {
  Snapshot s =
      With(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                      Running(3).share("a").started(300)});
  s.completing = {{s.world.family("p4"), kNow - 10}};
  const Decision soon = s.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(soon.verdict, Verdict::Start);
  EXPECT_TRUE(soon.reclaim_to_fit.empty());
  EXPECT_EQ(soon.no_room, kAwaitingCompletingNode);
  const Decision later = s.decide(Pending(10).share("b").request("p4", 1), kNow + 20);
  EXPECT_EQ(later.reclaim_to_fit, std::vector<JobId>{3});
  EXPECT_TRUE(later.no_room.empty());
}

TEST(Decide, AReclaimInFlightWaitsForItsVictimsAndPreemptsNothingMore) {
  Snapshot s = ABorrowsOne();
  s.in_flight = {10};
  const Decision d = s.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Start);
  EXPECT_TRUE(d.victims.empty());
  EXPECT_TRUE(d.reclaim_to_fit.empty());
  EXPECT_EQ(d.no_room, kAwaitingVictims);
}

// A victim still listed as running (PreemptGraceTime, or a preemption a slurmctld crash lost)
// still holds its capacity: the claimant does not start elsewhere meanwhile, nor preempt more.
TEST(Decide, AReclaimWhoseVictimStillRunsWaitsWithoutStarting) {
  Snapshot s = ABorrowsOne();
  s.in_flight = {10};
  s.victims_running = {10};
  const Decision d = s.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Wait);
  EXPECT_TRUE(d.victims.empty());
  EXPECT_TRUE(d.reclaim_to_fit.empty());
  EXPECT_EQ(d.words, std::string("shareq: ") + kAwaitingVictims);
}

TEST(Decide, AWithinQuotaJobReclaimsTheNewestBorrowedJob) {
  const Decision d = ABorrowsOne().decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Preempt);
  EXPECT_EQ(victim_ids(d), std::vector<JobId>{3});
  EXPECT_EQ(d.victims[0].kind, PreemptKind::Reclaim);
  EXPECT_EQ(d.reason, WaitReason::FamilyAtCapacity);  // shown if Slurm cannot preempt it
}

TEST(Decide, ReclaimWaitsForReclaimAfterAndReclaimMinRuntime) {
  const Snapshot after =
      With(EvenAB().reclaim_after(60),
           {Running(1).share("a").started(100), Running(2).share("a").started(200),
            Running(3).share("a").started(300), Running(4).share("b").started(400)});
  const Decision young = after.decide(Pending(10).share("b").submitted(kNow - 5).request("p4", 1));
  EXPECT_EQ(young.verdict, Verdict::Wait);
  EXPECT_EQ(young.reason, WaitReason::ReclaimAfter);
  EXPECT_NE(young.words.find("ReclaimAfter"), std::string::npos) << young.words;

  const Snapshot runtime =
      With(EvenAB().reclaim_min_runtime(3600),
           {Running(1).share("a").started(kNow - 100), Running(2).share("a").started(kNow - 100),
            Running(3).share("a").started(kNow - 100), Running(4).share("b").started(400)});
  const Decision d = runtime.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Wait);
  EXPECT_EQ(d.reason, WaitReason::ReclaimMinRuntime);
}

TEST(Decide, ABorrowerAtItsLimitWaitsAndPreemptsNothing) {
  const Snapshot s = With(EvenAB().borrow_limit(Amount(0)), {Running(4).share("b").started(400)});
  const Decision d = s.decide(Pending(10).share("b").request("p4", 2));
  EXPECT_EQ(d.verdict, Verdict::Wait);
  EXPECT_EQ(d.reason, WaitReason::ShareAtBorrowLimit);
  EXPECT_TRUE(d.victims.empty());
}

TEST(Decide, AJobTriesItsOwnReservedPoolFirst) {
  // a holds its quota: one running job and a one-node reserved pool; b runs 2. Full.
  Snapshot s =
      With(EvenAB(), {Running(1).share("a").started(100), Running(3).share("b").started(300),
                      Running(4).share("b").started(400)});
  s.held = {s.pool(7, "a", 1)};
  s.pool_of = {{10, 7}};
  const Decision mine = s.decide(Pending(10).share("a").request("p4", 1));
  EXPECT_EQ(mine.on_pool, std::optional<uint64_t>{7});
  EXPECT_EQ(mine.verdict, Verdict::Wait);  // elsewhere it would borrow from a full family
  // Another job of a's that does not match the pool gets no pool.
  EXPECT_FALSE(s.decide(Pending(11).share("a").request("p4", 1)).on_pool);
}

TEST(Decide, AWithinQuotaJobEndsABorrowersPoolBeforeAnyRunningJob) {
  // a runs 2 (its quota) and keeps a one-node pool warm: it borrows 1 through the pool.
  Snapshot s =
      With(EvenAB(), {Running(1).share("a").started(100), Running(2).share("a").started(200),
                      Running(3).share("b").started(300)});
  s.held = {s.pool(7, "a", 1)};
  const Decision d = s.decide(Pending(10).share("b").request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Start);
  EXPECT_EQ(d.end_pools, std::vector<uint64_t>{7});
  EXPECT_TRUE(d.victims.empty());
}

TEST(Decide, InSharePreemptionTakesTheLowestPriorityJobOfTheShare) {
  const Cluster c = Cluster()
                        .family("p4", Unit::Node, 4)
                        .share("a", "p4", 4)
                        .borrow_limit(Amount(0))
                        .in_share_preemption(true);
  const Snapshot s = With(c, {Running(1).share("a").priority(80).started(100),
                              Running(2).share("a").priority(10).started(200),
                              Running(3).share("a").priority(50).started(300),
                              Running(4).share("a").priority(30).started(400)});
  const Decision d = s.decide(Pending(10).share("a").priority(90).request("p4", 1));
  EXPECT_EQ(d.verdict, Verdict::Preempt);
  EXPECT_EQ(victim_ids(d), std::vector<JobId>{2});
  EXPECT_EQ(d.victims[0].kind, PreemptKind::InShare);
  const Decision low = s.decide(Pending(11).share("a").priority(5).request("p4", 1));
  EXPECT_EQ(low.verdict, Verdict::Wait);
}

// README, Figure 1: p4 has 100 nodes; ProdExp1's quota 60, ProdExp2's 40.
Cluster Figure1() {
  return Cluster()
      .family("p4", Unit::Node, 100)
      .share("prodexp1", "p4", 60)
      .share("prodexp2", "p4", 40)
      .reclaim_min_runtime(0);
}

TEST(Decide, ReadmeFigure1BorrowThenReclaimTheNewestBorrowedJobs) {
  // t0: ProdExp2 runs 25; ProdExp1 runs 60 within quota and borrows 15 (three 5-node jobs).
  std::vector<Running> t0 = {Running(1).share("prodexp2").amount(25).started(10),
                             Running(2).share("prodexp1").amount(60).started(20)};
  for (JobId id = 3; id <= 5; ++id) {
    t0.push_back(Running(id).share("prodexp1").amount(5).started(20 + static_cast<Time>(id)));
  }
  const Snapshot before = With(Figure1(), {t0[0], t0[1]});
  EXPECT_EQ(before.decide(Pending(3).share("prodexp1").request("p4", 5)).verdict, Verdict::Start);
  const Snapshot s = With(Figure1(), t0);
  // ProdExp1's next job would borrow from a full family: it waits, preempting nothing.
  EXPECT_EQ(s.decide(Pending(6).share("prodexp1").request("p4", 5)).verdict, Verdict::Wait);
  // t1: ProdExp2 asks for 15 more (40 in all): within quota, it reclaims all 15 borrowed nodes,
  // ProdExp1's newest first.
  const Decision d = s.decide(Pending(7).share("prodexp2").request("p4", 15));
  EXPECT_EQ(d.verdict, Verdict::Preempt);
  EXPECT_EQ(victim_ids(d), (std::vector<JobId>{5, 4, 3}));
}

TEST(Decide, ReadmeFigure2APriority90JobPreemptsOnlyThePriority10Job) {
  const Cluster c = Cluster()
                        .family("p4", Unit::Node, 100)
                        .share("prodexp1", "p4", 60)
                        .borrow_limit(Amount(0))
                        .share("prodexp2", "p4", 40)
                        .in_share_preemption(true);
  const Snapshot s = With(c, {Running(1).share("prodexp1").amount(15).priority(80).started(10),
                              Running(2).share("prodexp1").amount(15).priority(50).started(20),
                              Running(3).share("prodexp1").amount(15).priority(30).started(30),
                              Running(4).share("prodexp1").amount(15).priority(10).started(40)});
  const Decision high = s.decide(Pending(5).share("prodexp1").priority(90).request("p4", 15));
  EXPECT_EQ(high.verdict, Verdict::Preempt);
  EXPECT_EQ(victim_ids(high), std::vector<JobId>{4});
  const Decision low = s.decide(Pending(6).share("prodexp1").priority(5).request("p4", 15));
  EXPECT_EQ(low.verdict, Verdict::Wait);
  EXPECT_TRUE(low.victims.empty());
}

}  // namespace
}  // namespace shareq::policy::testing
