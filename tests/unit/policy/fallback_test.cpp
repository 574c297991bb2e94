// Fallback to a compatible family (fallback.hpp): when a job's requests in its fallback families
// open, what decide() says before and after, and how the job ranks in each family.
#include <gtest/gtest.h>

#include "policy/decision.hpp"
#include "policy/fallback.hpp"
#include "policy/job_record.hpp"
#include "policy/ordering.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

// p5 (16 GPUs, a and b own 8 each) falls back to p4 (4 nodes, a owns 2, b none).
Cluster P5FallsBackToP4() {
  return Cluster()
      .family("p5", Unit::Gpu, 16)
      .family("p4", Unit::Node, 4)
      .share("a", "p5", 8)
      .share("b", "p5", 8)
      .share("a", "p4", 2)
      .fallback("p5", {"p4"})
      .fallback_delay(300)
      .reclaim_min_runtime(0);
}

// A job of share a submitted to p5 (the tag says home=p5) that also lists p4, asking 8 GPUs on
// one node, eligible since 1000.
JobRecord Submitted(const std::string& tag_home = "p5") {
  JobRecord job;
  job.id = 7;
  job.account = "a";
  job.partitions = {"p5", "p4"};
  job.nodes = 1;
  job.gpus = 8;
  job.admin_comment = "shareq:share=a,priority=50,keep_alive=0" +
                      (tag_home.empty() ? std::string() : ",home=" + tag_home);
  job.submit_time = 990;
  job.eligible_time = 1000;
  return job;
}

TEST(Fallback, AFallbackRequestOpensFallbackDelayAfterTheJobBecameEligible) {
  const Policy p = P5FallsBackToP4().build();
  const FamilyId p5 = *p.family_id("p5");
  const FamilyId p4 = *p.family_id("p4");
  const auto before = as_pending(p, Submitted(), 1299);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->home, p5);
  EXPECT_EQ(before->requests, (std::vector<FamilyRequest>{{p5, 8}}));
  EXPECT_EQ(before->later, (std::vector<LaterRequest>{{p4, 1, 1300}}));
  EXPECT_EQ(next_fallback_at(*before), 1300);

  const auto after = as_pending(p, Submitted(), 1300);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->requests, (std::vector<FamilyRequest>{{p5, 8}, {p4, 1}}));
  EXPECT_TRUE(after->later.empty());
}

TEST(Fallback, AfterAFailedRunTheFallbackOpensAtOnce) {
  const Policy p = P5FallsBackToP4().build();
  JobRecord job = Submitted();
  job.restarts = 1;
  job.admin_comment += " shareq-failed:node_fail,nodes:p5n3,requeue:1";
  const auto pending = as_pending(p, job, 1000);
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->requests.size(), 2U);
  EXPECT_TRUE(pending->later.empty());
}

// A caller that needs the failed run itself (select/shareq when a job starts) decodes it once and
// passes it: as_pending then goes by what it was given, not by a second reading of the comment.
TEST(Fallback, AFailedRunDecodedByTheCallerIsTheOneThatCounts) {
  const Policy p = P5FallsBackToP4().build();
  JobRecord job = Submitted();
  job.restarts = 1;
  job.admin_comment += " shareq-failed:node_fail,nodes:p5n3,requeue:1";
  const std::optional<FailedRun> failed = failure_before(job.admin_comment, job.restarts);
  ASSERT_TRUE(failed);
  EXPECT_EQ(as_pending(p, job, 1000, failed), as_pending(p, job, 1000));
  const auto given = as_pending(p, Submitted(), 1000, failed);  // no word in the comment
  ASSERT_TRUE(given);
  EXPECT_EQ(given->requests.size(), 2U);
  EXPECT_TRUE(given->later.empty());
  const auto none = as_pending(p, job, 1000, std::nullopt);  // a word, but none given
  ASSERT_TRUE(none);
  EXPECT_EQ(none->requests.size(), 1U);
  EXPECT_EQ(none->later.size(), 1U);
}

TEST(Fallback, AnOlderFailedRunDoesNotOpenTheFallbackOfALaterRun) {
  const Policy p = P5FallsBackToP4().build();
  JobRecord job = Submitted();
  job.restarts = 2;  // failed before run 1; run 1 was preempted
  job.admin_comment += " shareq-failed:node_fail,nodes:p5n3,requeue:1";
  const auto pending = as_pending(p, job, 1000);
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->requests.size(), 1U);
  EXPECT_EQ(pending->later.size(), 1U);
}

TEST(Fallback, AJobThatChoseSeveralFamiliesItselfHasNoDelay) {
  const Policy p = P5FallsBackToP4().build();
  const auto pending = as_pending(p, Submitted(""), 1000);
  ASSERT_TRUE(pending);
  EXPECT_FALSE(pending->home);
  EXPECT_EQ(pending->requests.size(), 2U);
}

// p5 full: b runs 16 GPUs (8 borrowed); a's job within quota could reclaim, but b's jobs may not
// be reclaimed yet (ReclaimMinRuntime), so it waits in p5.
struct Saturated {
  World world{P5FallsBackToP4().reclaim_min_runtime(600),
              {Running(1).share("b").family("p5").amount(8).started(1000),
               Running(2).share("b").family("p5").amount(8).started(1000)}};
  [[nodiscard]] Decision decide(const JobRecord& job, const std::string& family, Time now) const {
    const Ledger ledger = world.ledger();
    const ControllerView view{ledger, world.running, {}, {}, 30};
    return policy::decide(view, *as_pending(world.policy, job, now), world.family(family), now);
  }
};

TEST(Fallback, BeforeItsDelayAJobWaitsInTheFallbackFamilySayingWhyAndWhen) {
  const Saturated s;
  const Decision in_p4 = s.decide(Submitted(), "p4", 1200);
  EXPECT_EQ(in_p4.verdict, Verdict::Wait);
  EXPECT_EQ(in_p4.reason, WaitReason::FallbackDelay);
  EXPECT_EQ(in_p4.words,
            "shareq: family p5: waiting for borrowed jobs in p5 to reach ReclaimMinRuntime=600s; "
            "may start in family p4 in 100s (FallbackDelay=300s)");
  const Decision in_p5 = s.decide(Submitted(), "p5", 1200);
  EXPECT_EQ(in_p5.verdict, Verdict::Wait);
  EXPECT_EQ(in_p5.words,
            "shareq: waiting for borrowed jobs in p5 to reach ReclaimMinRuntime=600s; may start "
            "in family p4 in 100s (FallbackDelay=300s)");
}

TEST(Fallback, AfterItsDelayAJobStartsInTheFallbackFamilyAsAJobOfItsShareThere) {
  const Saturated s;
  const Decision in_p4 = s.decide(Submitted(), "p4", 1300);
  EXPECT_EQ(in_p4.verdict, Verdict::Start);
  EXPECT_TRUE(in_p4.within_quota);  // a's quota in p4
  const Decision in_p5 = s.decide(Submitted(), "p5", 1300);
  EXPECT_EQ(in_p5.verdict, Verdict::Wait);
  EXPECT_EQ(in_p5.words.find("may start in family"), std::string::npos);
}

TEST(Fallback, AShareWithNoQuotaInTheFallbackFamilyCannotRunThere) {
  const Saturated s;
  JobRecord job = Submitted();
  job.account = "b";
  job.admin_comment = "shareq:share=b,priority=50,keep_alive=0,home=p5";
  const Decision in_p4 = s.decide(job, "p4", 1300);
  EXPECT_EQ(in_p4.verdict, Verdict::Wait);
  EXPECT_EQ(in_p4.reason, WaitReason::NoQuotaInFamily);
}

TEST(Fallback, AJobRanksInEachFamilyAsThatFamilysOwnJobsOfEqualStanding) {
  const Saturated s;
  const Ledger ledger = s.world.ledger();
  const auto job = as_pending(s.world.policy, Submitted(), 1300);
  ASSERT_TRUE(job);
  const PriorityFactors f = prioritize_one(ledger, {}, *job);
  ASSERT_EQ(f.in_family.size(), 2U);
  // Within quota in both: a holds nothing in p5 or p4.
  EXPECT_EQ(f.in_family[0].first, s.world.family("p5"));
  EXPECT_EQ(f.in_family[1].first, s.world.family("p4"));
  // In p4 it ranks as a job of a that asks p4 alone.
  PendingJob p4_only = *job;
  p4_only.requests = {job->requests[1]};
  EXPECT_EQ(f.in_family[1].second, prioritize_one(ledger, {}, p4_only).priority);
  PendingJob p5_only = *job;
  p5_only.requests = {job->requests[0]};
  EXPECT_EQ(f.in_family[0].second, prioritize_one(ledger, {}, p5_only).priority);
  EXPECT_EQ(f.priority, std::max(f.in_family[0].second, f.in_family[1].second));
  // Before its delay it asks p5 alone: one priority.
  EXPECT_TRUE(
      prioritize_one(ledger, {}, *as_pending(s.world.policy, Submitted(), 1200)).in_family.empty());
}

TEST(Fallback, TheSystemCommentSaysFromWhereToWhereAfterHowLongAndWhy) {
  const Saturated s;
  const Decision home = s.decide(Submitted(), "p5", 1312);
  EXPECT_EQ(fallback_comment(s.world.policy, s.world.family("p5"), s.world.family("p4"), 312, home),
            "shareq: fell back from p5 to p4 after 312 s: family p5: waiting for borrowed jobs in "
            "p5 to reach ReclaimMinRuntime=600s");
}

}  // namespace
}  // namespace shareq::policy::testing
