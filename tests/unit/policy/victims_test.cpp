// pick_victims and may_preempt: reclaim, in-share preemption, and what must never happen.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "policy/describe.hpp"
#include "policy_builders.hpp"
#include "policy_invariants.hpp"

namespace shareq::policy::testing {
namespace {

constexpr Time kNow = 10'000;
constexpr auto R = PreemptKind::Reclaim;
constexpr auto I = PreemptKind::InShare;

// p4: 4 nodes split evenly; borrowed jobs may be reclaimed at once.
Cluster Even() {
  return Cluster()
      .family("p4", Unit::Node, 4)
      .share("prodexp1", "p4", 2)
      .share("prodexp2", "p4", 2)
      .reclaim_min_runtime(0);
}

// p4: `capacity` nodes; three shares of 2.
Cluster Three(int64_t capacity = 6) {
  return Cluster()
      .family("p4", Unit::Node, capacity)
      .share("a", "p4", 2)
      .share("b", "p4", 2)
      .share("c", "p4", 2)
      .reclaim_min_runtime(0);
}

// The seed's Figure 2 at scale 1/15: prodexp1 holds its 4 nodes with priorities 80, 50, 30, 10.
Cluster Figure2() {
  return Cluster()
      .family("p4", Unit::Node, 6)
      .share("prodexp1", "p4", 4)
      .share("prodexp2", "p4", 2)
      .reclaim_min_runtime(600);
}
std::vector<Running> Figure2Jobs() {
  return {Running(1).share("prodexp1").priority(80).started(100),
          Running(2).share("prodexp1").priority(50).started(200),
          Running(3).share("prodexp1").priority(30).started(300),
          Running(4).share("prodexp1").priority(10).started(400),
          Running(5).share("prodexp2").amount(2).priority(50).started(100)};
}

// Figure2's family, but prodexp1 may not borrow.
Cluster NoBorrowing() {
  return Cluster()
      .family("p4", Unit::Node, 6)
      .share("prodexp1", "p4", 4)
      .borrow_limit(Amount(0))
      .share("prodexp2", "p4", 2);
}

struct VictimCase {
  std::string name;
  Cluster cluster;
  std::vector<Running> running;
  Pending job;
  int64_t amount;
  bool possible;
  std::vector<Victim> victims;
  WaitReason reason;
};

void PrintTo(const VictimCase& c, std::ostream* os) { *os << c.name; }

class PickVictims : public ::testing::TestWithParam<VictimCase> {};

TEST_P(PickVictims, Decides) {
  const VictimCase& c = GetParam();
  const World world(c.cluster, c.running);
  const auto running_before = world.running;
  const Ledger ledger = world.ledger();
  const int64_t used_before = ledger.used(0);
  const PendingJob job = c.job.resolve(world.policy);
  const PendingJob job_before = job;
  const FamilyId p4 = world.family("p4");
  const VictimChoice choice = pick_victims(ledger, job, p4, c.amount, world.running, kNow);
  EXPECT_EQ(choice.possible, c.possible);
  EXPECT_EQ(choice.victims, c.victims);
  EXPECT_EQ(choice.reason, c.reason);
  expect_valid_victims(world, job, p4, c.amount, kNow, choice);
  EXPECT_EQ(world.running, running_before);
  EXPECT_EQ(job, job_before);
  EXPECT_EQ(ledger.used(0), used_before);
}

Pending Job(const std::string& share, int priority = 50) {
  return Pending(100).share(share).priority(priority).request("p4", 1);
}

INSTANTIATE_TEST_SUITE_P(
    Reclaim, PickVictims,
    ::testing::Values(
        VictimCase{"nothing_preempted_when_the_job_fits",
                   Even(),
                   {Running(1).share("prodexp1").amount(2)},
                   Job("prodexp2"),
                   2,
                   true,
                   {},
                   WaitReason::None},
        VictimCase{
            "reclaim_takes_only_borrowed_jobs",
            Even(),
            {Running(1).share("prodexp1").started(10), Running(2).share("prodexp1").started(20),
             Running(3).share("prodexp1").started(30), Running(4).share("prodexp2")},
            Job("prodexp2"),
            1,
            true,
            {{3, R}},
            WaitReason::None},
        VictimCase{"reclaim_takes_the_lowest_priority_borrowed_job",
                   Even(),
                   {Running(1).share("prodexp1").priority(10).started(30),
                    Running(2).share("prodexp1").priority(20).started(40),
                    Running(3).share("prodexp1").priority(5).started(10)},
                   Job("prodexp2"),
                   2,
                   true,
                   {{3, R}},
                   WaitReason::None},
        VictimCase{
            "reclaim_takes_the_latest_started_on_equal_priority",
            Even(),
            {Running(1).share("prodexp1").started(30), Running(2).share("prodexp1").started(20),
             Running(3).share("prodexp1").started(10)},
            Job("prodexp2"),
            2,
            true,
            {{1, R}},
            WaitReason::None},
        VictimCase{"reclaim_takes_the_highest_id_on_equal_start",
                   Even(),
                   {Running(7).share("prodexp1"), Running(9).share("prodexp1"),
                    Running(8).share("prodexp1")},
                   Job("prodexp2"),
                   2,
                   true,
                   {{9, R}},
                   WaitReason::None},
        VictimCase{"reclaim_takes_from_the_most_borrowing_share_first",
                   Three(8),
                   {Running(1).share("a").amount(2), Running(4).share("a").priority(1),
                    Running(2).share("b").amount(2).priority(90),
                    Running(3).share("b").priority(90).started(5),
                    Running(5).share("b").priority(90).started(6)},
                   Job("c"),
                   2,
                   true,
                   {{5, R}},
                   WaitReason::None},
        VictimCase{
            "reclaim_levels_borrowers_re_evaluating_after_each_pick",
            Three(7),
            {Running(1).share("a").amount(2), Running(2).share("a").priority(10),
             Running(3).share("a").priority(20), Running(4).share("b").amount(2).priority(90),
             Running(5).share("b").priority(15)},
            Job("c"),
            2,
            true,
            {{2, R}, {5, R}},
            WaitReason::None},
        VictimCase{"reclaim_passes_over_a_job_that_would_take_its_share_below_quota",
                   Three(),
                   {Running(1).share("a").amount(2).priority(1), Running(2).share("a").priority(5),
                    Running(3).share("b").amount(2)},
                   Job("c"),
                   2,
                   true,
                   {{2, R}},
                   WaitReason::None},
        VictimCase{"reclaim_never_takes_a_share_below_its_quota",
                   Even(),
                   {Running(1).share("prodexp1").amount(3)},
                   Job("prodexp2"),
                   2,
                   false,
                   {},
                   WaitReason::FamilyAtCapacity},
        VictimCase{"reclaim_takes_no_more_than_needed",
                   Three(),
                   {Running(1).share("a").amount(2), Running(2).share("a").priority(1),
                    Running(3).share("a").amount(2).priority(2).started(5),
                    Running(4).share("c").amount(1)},
                   Job("b"),
                   2,
                   true,
                   {{3, R}},
                   WaitReason::None},
        VictimCase{
            "a_borrower_never_preempts",
            Even(),
            {Running(1).share("prodexp1").amount(3), Running(2).share("prodexp2").priority(1)},
            Job("prodexp2", 99),
            2,
            false,
            {},
            WaitReason::NothingToBorrow},
        VictimCase{"reclaim_waits_for_reclaim_min_runtime",
                   Even().reclaim_min_runtime(600),
                   {Running(1).share("prodexp1").amount(2),
                    Running(2).share("prodexp1").started(kNow - 599)},
                   Job("prodexp2"),
                   2,
                   false,
                   {},
                   WaitReason::ReclaimMinRuntime},
        VictimCase{"reclaim_takes_jobs_at_exactly_reclaim_min_runtime",
                   Even().reclaim_min_runtime(600),
                   {Running(1).share("prodexp1").amount(2),
                    Running(2).share("prodexp1").started(kNow - 600),
                    Running(3).share("prodexp1").started(kNow - 1)},
                   Job("prodexp2"),
                   1,
                   true,
                   {{2, R}},
                   WaitReason::None},
        VictimCase{"share_without_quota_in_family_preempts_nothing",
                   Even(),
                   {Running(1).share("prodexp1").amount(4)},
                   Job("research"),
                   1,
                   false,
                   {},
                   WaitReason::NoQuotaInFamily}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    InShare, PickVictims,
    ::testing::Values(VictimCase{"figure2_priority_90_preempts_only_the_priority_10_job",
                                 Figure2(),
                                 Figure2Jobs(),
                                 Job("prodexp1", 90),
                                 1,
                                 true,
                                 {{4, I}},
                                 WaitReason::None},
                      VictimCase{"figure2_priority_5_preempts_nothing",
                                 Figure2(),
                                 Figure2Jobs(),
                                 Job("prodexp1", 5),
                                 1,
                                 false,
                                 {},
                                 WaitReason::NothingToBorrow},
                      VictimCase{"in_share_takes_lowest_priorities_first_until_enough",
                                 Figure2(),
                                 Figure2Jobs(),
                                 Job("prodexp1", 90),
                                 2,
                                 true,
                                 {{4, I}, {3, I}},
                                 WaitReason::None},
                      VictimCase{"in_share_never_takes_an_equal_priority",
                                 Figure2(),
                                 Figure2Jobs(),
                                 Job("prodexp1", 30),
                                 2,
                                 false,
                                 {},
                                 WaitReason::NothingToBorrow},
                      VictimCase{"in_share_ignores_reclaim_min_runtime",
                                 Figure2().reclaim_min_runtime(100'000),
                                 Figure2Jobs(),
                                 Job("prodexp1", 90),
                                 1,
                                 true,
                                 {{4, I}},
                                 WaitReason::None},
                      VictimCase{"in_share_off_preempts_nothing",
                                 Figure2().in_share_preemption(false),
                                 Figure2Jobs(),
                                 Job("prodexp1", 90),
                                 1,
                                 false,
                                 {},
                                 WaitReason::NothingToBorrow},
                      VictimCase{
                          "in_share_when_the_quota_cannot_hold_the_job",
                          Figure2(),
                          {Running(1).share("prodexp1").amount(3).priority(10),
                           Running(2).share("prodexp2").amount(2), Running(3).share("prodexp2")},
                          Job("prodexp1", 90),
                          2,
                          true,
                          {{1, I}},
                          WaitReason::None},
                      VictimCase{"in_share_never_takes_another_share",
                                 Figure2(),
                                 {Running(1).share("prodexp1").amount(4).priority(60),
                                  Running(2).share("prodexp2").amount(2).priority(1)},
                                 Job("prodexp1", 50),
                                 1,
                                 false,
                                 {},
                                 WaitReason::NothingToBorrow},
                      VictimCase{"borrowing_beats_in_share_when_capacity_is_idle",
                                 Figure2(),
                                 {Running(1).share("prodexp1").amount(4).priority(10)},
                                 Job("prodexp1", 90),
                                 2,
                                 true,
                                 {},
                                 WaitReason::None},
                      VictimCase{"in_share_at_borrow_limit_even_with_idle_capacity",
                                 NoBorrowing(),
                                 {Running(1).share("prodexp1").amount(4).priority(10)},
                                 Job("prodexp1", 90),
                                 1,
                                 true,
                                 {{1, I}},
                                 WaitReason::None},
                      VictimCase{"failed_in_share_keeps_admits_reason",
                                 NoBorrowing(),
                                 {Running(1).share("prodexp1").amount(4).priority(10)},
                                 Job("prodexp1", 5),
                                 1,
                                 false,
                                 {},
                                 WaitReason::ShareAtBorrowLimit}),
    [](const auto& info) { return info.param.name; });

// The seed's Figure 1 at scale 1/10: p4 has 10 nodes, prodexp1 quota 6, prodexp2 quota 4.
// prodexp2 runs 2 (under quota), prodexp1 borrows the rest (8); prodexp2 then asks for its full
// quota and gets it back by reclaim; prodexp1 ends exactly at its quota, and the displaced job
// cannot reclaim back.
TEST(Figure1, BorrowerIsCutBackExactlyToItsQuota) {
  const Cluster cluster = Cluster()
                              .family("p4", Unit::Node, 10)
                              .share("prodexp1", "p4", 6)
                              .share("prodexp2", "p4", 4)
                              .reclaim_min_runtime(600);
  World world(cluster, {Running(1).share("prodexp2").amount(2).started(0)});
  const FamilyId p4 = world.family("p4");
  Time now = 0;
  // prodexp1 borrows all that is idle, job by job (work-conserving).
  for (JobId id = 10; id < 18; ++id) {
    const PendingJob job = Pending(id).share("prodexp1").request("p4", 1).resolve(world.policy);
    const Admission admission = admit(world.ledger(), job.share, p4, 1);
    ASSERT_TRUE(admission.can_start) << "job " << id;
    expect_valid_admission(world, job, p4, 1, admission);
    world.apply({true, {}, WaitReason::None}, job, p4, 1, now += 10);
  }
  EXPECT_EQ(world.usage("prodexp1", "p4"), 8);
  EXPECT_EQ(world.ledger().idle(p4), 0);

  // prodexp2 asks for 2 more, its full quota: too early for reclaim ...
  const PendingJob full = Pending(20).share("prodexp2").request("p4", 2).resolve(world.policy);
  VictimChoice choice = pick_victims(world.ledger(), full, p4, 2, world.running, now);
  EXPECT_FALSE(choice.possible);
  EXPECT_EQ(choice.reason, WaitReason::ReclaimMinRuntime);

  // ... then it takes back exactly 2, the latest-started borrowed jobs.
  now += 600;
  choice = pick_victims(world.ledger(), full, p4, 2, world.running, now);
  ASSERT_TRUE(choice.possible);
  EXPECT_EQ(ids(choice), (std::vector<JobId>{17, 16}));
  expect_valid_victims(world, full, p4, 2, now, choice);
  world.apply(choice, full, p4, 2, now);
  EXPECT_EQ(world.usage("prodexp1", "p4"), 6);
  EXPECT_EQ(world.usage("prodexp2", "p4"), 4);

  // No loop: the displaced job would borrow, so it neither starts nor preempts, now or later.
  for (Time later : {now, now + 600, now + 100'000}) {
    const PendingJob back =
        Pending(17).share("prodexp1").priority(50).request("p4", 1).resolve(world.policy);
    choice = pick_victims(world.ledger(), back, p4, 1, world.running, later);
    EXPECT_FALSE(choice.possible);
    EXPECT_TRUE(choice.victims.empty());
    EXPECT_EQ(choice.reason, WaitReason::NothingToBorrow);
    for (const RunningJob& r : world.running) {
      EXPECT_FALSE(may_preempt(world.ledger(), back, p4, 1, r, later)) << "job " << r.id;
    }
  }
}

// The priority-90 job that preempted in-share cannot be preempted back by its victim.
TEST(Figure2, VictimCannotPreemptBack) {
  World world(Figure2(), Figure2Jobs());
  const FamilyId p4 = world.family("p4");
  const PendingJob p90 =
      Pending(90).share("prodexp1").priority(90).request("p4", 1).resolve(world.policy);
  const VictimChoice choice = pick_victims(world.ledger(), p90, p4, 1, world.running, kNow);
  ASSERT_EQ(ids(choice), std::vector<JobId>{4});
  world.apply(choice, p90, p4, 1, kNow);
  const PendingJob p10 =
      Pending(4).share("prodexp1").priority(10).request("p4", 1).resolve(world.policy);
  const VictimChoice back = pick_victims(world.ledger(), p10, p4, 1, world.running, kNow + 1);
  EXPECT_FALSE(back.possible);
  EXPECT_TRUE(back.victims.empty());
}

TEST(MayPreempt, AgreesWithPickVictimsAndOffersReclaimForPlacement) {
  const World world(
      Even(), {Running(1).share("prodexp1").amount(2), Running(2).share("prodexp1").started(kNow)});
  const Ledger ledger = world.ledger();
  const PendingJob job = Job("prodexp2").resolve(world.policy);
  // It fits by the numbers; should no node have room, it may still take back borrowed capacity.
  EXPECT_TRUE(may_preempt(ledger, job, 0, 1, world.running[1], kNow));
  EXPECT_EQ(placement_candidates(ledger, job, 0, 1, world.running, kNow), std::vector<JobId>{2});
  EXPECT_TRUE(may_preempt(ledger, job, 0, 2, world.running[1], kNow));
  EXPECT_FALSE(may_preempt(ledger, job, 0, 2, world.running[0], kNow));  // would go below quota
  EXPECT_FALSE(may_preempt(ledger, job, 1, 2, world.running[1], kNow));  // other family
}

// ReclaimAfter: a job within quota first waits for capacity to come free by itself; once it has
// waited ReclaimAfter since its submission, it reclaims. Nothing is a candidate before, neither
// for pick_victims, nor for Slurm's candidate search (may_preempt), nor for placement.
TEST(ReclaimAfter, AJobWithinQuotaReclaimsOnlyOnceItHasWaitedThatLong) {
  const Cluster cluster = Cluster()
                              .family("p4", Unit::Node, 4)
                              .share("prodexp1", "p4", 2)
                              .share("prodexp2", "p4", 2)
                              .reclaim_min_runtime(0)
                              .reclaim_after(30);
  const World world(cluster, {Running(1).share("prodexp1").amount(2).started(100),
                              Running(2).share("prodexp1").amount(2).started(100)});
  const FamilyId p4 = world.family("p4");
  const PendingJob job =
      Pending(3).share("prodexp2").submitted(1000).request("p4", 1).resolve(world.policy);
  for (const Time now : {Time{1000}, Time{1029}}) {
    const VictimChoice early = pick_victims(world.ledger(), job, p4, 1, world.running, now);
    EXPECT_FALSE(early.possible) << now;
    EXPECT_TRUE(early.victims.empty()) << now;
    EXPECT_EQ(early.reason, WaitReason::ReclaimAfter) << now;
    EXPECT_FALSE(may_preempt(world.ledger(), job, p4, 1, world.running[0], now)) << now;
    EXPECT_TRUE(placement_candidates(world.ledger(), job, p4, 1, world.running, now).empty());
  }
  const VictimChoice due = pick_victims(world.ledger(), job, p4, 1, world.running, 1030);
  ASSERT_TRUE(due.possible);
  EXPECT_EQ(ids(due), std::vector<JobId>{2});
  EXPECT_TRUE(may_preempt(world.ledger(), job, p4, 1, world.running[0], 1030));
  EXPECT_EQ(describe(WaitReason::ReclaimAfter, world.ledger(), job.share, p4, 1),
            "shareq: family p4 at capacity (4/4 node); reclaims once it has waited "
            "ReclaimAfter=30s");
}

TEST(ReclaimAfter, DoesNotDelayInSharePreemptionOrAJobThatFits) {
  const Cluster cluster =
      Cluster().family("p4", Unit::Node, 4).share("prodexp1", "p4", 4).reclaim_after(600);
  const World world(cluster, {Running(1).share("prodexp1").amount(3).priority(10)});
  const FamilyId p4 = world.family("p4");
  const PendingJob fits =
      Pending(2).share("prodexp1").submitted(kNow).request("p4", 1).resolve(world.policy);
  EXPECT_TRUE(pick_victims(world.ledger(), fits, p4, 1, world.running, kNow).possible);
  const PendingJob higher = Pending(3)
                                .share("prodexp1")
                                .priority(90)
                                .submitted(kNow)
                                .request("p4", 2)
                                .resolve(world.policy);
  const VictimChoice choice = pick_victims(world.ledger(), higher, p4, 2, world.running, kNow);
  ASSERT_TRUE(choice.possible);
  EXPECT_EQ(ids(choice), std::vector<JobId>{1});
}

TEST(PickVictims, SameVictimsWhateverTheInputOrder) {
  const Cluster cluster = Three(8);
  std::vector<Running> jobs;
  for (JobId id = 1; id <= 8; ++id) {
    jobs.push_back(Running(id)
                       .share(id % 2 ? "a" : "b")
                       .amount(1)
                       .priority(int(id % 3))
                       .started(Time(id % 4)));
  }
  World world(cluster, {});
  for (const Running& r : jobs) world.running.push_back(r.resolve(world.policy));
  const PendingJob job = Job("c").resolve(world.policy);
  const VictimChoice first = pick_victims(world.ledger(), job, 0, 2, world.running, kNow);
  ASSERT_TRUE(first.possible);
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(world.running.begin(), world.running.end(), rng);
    EXPECT_EQ(pick_victims(world.ledger(), job, 0, 2, world.running, kNow).victims, first.victims);
  }
}

// any_preemptable: whether Slurm needs to look for preemption candidates at all.
struct AnyPreemptableCase {
  std::string name;
  Cluster cluster;
  std::vector<Running> running;
  std::vector<int> highest_pending;  // [share id: sorted names]; empty: unknown
  bool expected;
};

void PrintTo(const AnyPreemptableCase& c, std::ostream* os) { *os << c.name; }

class AnyPreemptable : public ::testing::TestWithParam<AnyPreemptableCase> {};

TEST_P(AnyPreemptable, SaysWhetherAnyRunningJobCanBeAVictim) {
  const AnyPreemptableCase& c = GetParam();
  const World world(c.cluster, c.running);
  const PreemptionExposure exposure = preemption_exposure(world.ledger(), world.running);
  EXPECT_EQ(any_preemptable(exposure, c.highest_pending), c.expected);
}

// Even() without in-share preemption: only reclaim can make a victim.
Cluster ReclaimOnly() { return Even().in_share_preemption(false); }

constexpr int kNone = -1;  // highest_pending of a share with no pending job

INSTANTIATE_TEST_SUITE_P(
    Cases, AnyPreemptable,
    ::testing::Values(
        AnyPreemptableCase{"nothing_runs", Even(), {}, {}, false},
        AnyPreemptableCase{
            "every_share_exactly_at_its_quota",
            ReclaimOnly(),
            {Running(1).share("prodexp1").amount(2), Running(2).share("prodexp2").amount(2)},
            {},
            false},
        AnyPreemptableCase{
            "a_share_below_its_quota", ReclaimOnly(), {Running(1).share("prodexp1")}, {}, false},
        AnyPreemptableCase{"a_borrower",
                           ReclaimOnly(),
                           {Running(1).share("prodexp1").amount(2), Running(2).share("prodexp1")},
                           {kNone, kNone},
                           true},
        AnyPreemptableCase{
            "a_borrower_younger_than_reclaim_min_runtime",
            Figure2().in_share_preemption(false),
            {Running(1).share("prodexp2").amount(2), Running(2).share("prodexp2").started(kNow)},
            {},
            true},
        AnyPreemptableCase{"a_borrower_whose_only_job_straddles_its_quota",
                           ReclaimOnly(),
                           {Running(1).share("prodexp1").amount(3)},
                           {},
                           false},
        AnyPreemptableCase{"a_job_of_a_share_with_no_quota_in_its_family",
                           ReclaimOnly().family("p5", Unit::Gpu, 8).share("research", "p5", 8),
                           {Running(1).share("research")},
                           {},
                           true},
        AnyPreemptableCase{"in_share_a_job_below_the_highest_priority_any_job_may_have",
                           Even(),
                           {Running(1).share("prodexp1").amount(2).priority(98)},
                           {},
                           true},
        AnyPreemptableCase{"in_share_every_job_at_the_highest_priority_any_job_may_have",
                           Even(),
                           {Running(1).share("prodexp1").amount(2).priority(99),
                            Running(2).share("prodexp2").priority(99)},
                           {},
                           false},
        AnyPreemptableCase{
            "in_share_a_pending_job_above_a_running_one_of_its_share",
            Even(),
            {Running(1).share("prodexp1").priority(50), Running(2).share("prodexp1").priority(70)},
            {51, kNone},
            true},
        AnyPreemptableCase{
            "in_share_pending_jobs_no_higher_than_their_share_runs",
            Even(),
            {Running(1).share("prodexp1").priority(50), Running(2).share("prodexp2").priority(10)},
            {50, kNone},
            false},
        AnyPreemptableCase{"in_share_a_higher_pending_job_of_another_share",
                           Even(),
                           {Running(1).share("prodexp1").priority(10)},
                           {kNone, 90},
                           false},
        AnyPreemptableCase{"in_share_preemption_off",
                           ReclaimOnly(),
                           {Running(1).share("prodexp1").amount(2).priority(0)},
                           {99, 99},
                           false}),
    [](const ::testing::TestParamInfo<AnyPreemptableCase>& info) { return info.param.name; });

// any_preemptable against may_preempt itself, on random small clusters: every pending job
// (each family it might ask, each amount, at a time past any ReclaimMinRuntime) is tried against
// every running job; whenever one may preempt, any_preemptable must have said true. Half the
// rounds know the pending jobs; the others do not (an empty span: every share, every priority).
TEST(AnyPreemptable, NeverSaysNoWhenSomePendingJobMayPreempt) {
  std::mt19937 rng(20261130);
  const std::vector<std::string> shares = {"a", "b", "c"};
  const std::vector<int> priorities = {0, 1, 50, 51, 98, 99};
  int said_no = 0;
  int said_yes = 0;
  for (int round = 0; round < 600; ++round) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    Cluster cluster;
    cluster.reclaim_min_runtime(pick(2) * 600).in_share_preemption(pick(3) != 0);
    for (const std::string family : {"p4", "p5"}) {
      cluster.family(family, family == "p4" ? Unit::Node : Unit::Gpu, 4 + pick(4));
      for (const std::string& share : shares) {
        if (pick(4) == 0) continue;  // this share has no quota in this family
        cluster.share(share, family, pick(4));
        if (pick(3) == 0) cluster.borrow_limit(Amount(pick(3)));
        if (pick(3) == 0) cluster.lend_limit(Amount(pick(3)));
      }
    }
    std::vector<Running> jobs;
    for (int id = 1, n = pick(7); id <= n; ++id) {
      jobs.push_back(Running(static_cast<JobId>(id))
                         .share(shares[static_cast<size_t>(pick(3))])
                         .family(pick(2) ? "p4" : "p5")
                         .amount(1 + pick(3))
                         .priority(priorities[static_cast<size_t>(pick(6))])
                         .started(kNow - pick(2) * 1000));
    }
    const World world(cluster, jobs);
    // The pending jobs as (share, priority).
    std::vector<std::pair<ShareId, int>> pending;
    std::vector<int> highest;
    if (round % 2 == 0) {
      highest.assign(world.policy.share_count(), kNone);
      for (int n = pick(4); n > 0; --n) {
        const ShareId share = world.share(shares[static_cast<size_t>(pick(3))]);
        const int priority = priorities[static_cast<size_t>(pick(6))];
        pending.emplace_back(share, priority);
        if (share < highest.size()) highest[share] = std::max(highest[share], priority);
      }
    } else {
      for (const std::string& share : shares) {
        for (int priority : priorities) pending.emplace_back(world.share(share), priority);
      }
    }
    const Ledger ledger = world.ledger();
    const bool said = any_preemptable(preemption_exposure(ledger, world.running), highest);
    (said ? said_yes : said_no) += 1;
    if (said) continue;
    for (const auto& [share, priority] : pending) {
      for (FamilyId family = 0; family < 2; ++family) {
        for (int64_t amount = 0; amount <= 8; ++amount) {
          const PendingJob job{999, share, priority, 0, {{family, amount}}};
          for (const RunningJob& r : world.running) {
            ASSERT_FALSE(may_preempt(ledger, job, family, amount, r, kNow + 100'000))
                << "round " << round << ": a job of share " << share << " asking " << amount
                << " at priority " << priority << " may preempt job " << r.id;
          }
        }
      }
    }
  }
  // Both answers came up often enough for the check to mean something.
  EXPECT_GT(said_no, 60);
  EXPECT_GT(said_yes, 60);
}

}  // namespace
}  // namespace shareq::policy::testing
