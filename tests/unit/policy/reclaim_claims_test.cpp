// with_claims: decisions taken while a reclaim is in flight see its victims gone and its job
// running.
#include <gtest/gtest.h>

#include "policy/reclaim_claims.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

constexpr Time kNow = 10'000;

// gpu family of 8: a and b hold 4 each; c holds 0 and may borrow.
Cluster Eight() {
  return Cluster()
      .family("gpu", Unit::Gpu, 8)
      .share("a", "gpu", 4)
      .share("b", "gpu", 4)
      .share("c", "gpu", 0)
      .reclaim_min_runtime(0);
}

// b borrows the whole family with eight one-GPU jobs (ids 1..8, started in id order).
std::vector<Running> BBorrowsAll() {
  std::vector<Running> jobs;
  for (JobId id = 1; id <= 8; ++id) {
    jobs.push_back(Running(id).share("b").family("gpu").amount(1).started(100 * id));
  }
  return jobs;
}

ReclaimClaim ClaimOf(const World& w, const PendingJob& job, const VictimChoice& choice) {
  ReclaimClaim claim{
      job.id, job.share, job.requests.front().family, job.requests.front().amount, job.priority,
      kNow,   {}};
  for (const Victim& v : choice.victims) claim.victims.push_back(v.id);
  (void)w;
  return claim;
}

TEST(WithClaims, RemovesTheVictimsAndAddsTheClaimantSortedById) {
  const World w(Eight(), BBorrowsAll());
  const ReclaimClaim claim{20, w.share("a"), w.family("gpu"), 2, 70, kNow, {7, 8}};
  const std::vector<RunningJob> out = with_claims(w.running, std::vector{claim});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out.back(), (RunningJob{20, w.share("a"), w.family("gpu"), 2, 70, kNow}));
  for (const RunningJob& r : out) EXPECT_TRUE(r.id != 7 && r.id != 8) << r.id;
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(),
                             [](const RunningJob& x, const RunningJob& y) { return x.id < y.id; }));
}

TEST(WithClaims, AClaimantThatStartedIsCountedOnceAsItRuns) {
  World w(Eight(), BBorrowsAll());
  w.running.push_back(
      Running(20).share("a").family("gpu").amount(2).started(kNow + 5).resolve(w.policy));
  const ReclaimClaim claim{20, w.share("a"), w.family("gpu"), 2, 50, kNow, {7, 8}};
  const std::vector<RunningJob> out = with_claims(w.running, std::vector{claim});
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](const RunningJob& r) { return r.id == 20; }),
            1);
  EXPECT_EQ(Ledger(w.policy, out).usage(w.share("a"), w.family("gpu")), 2);
}

TEST(WithClaims, NoClaimsLeavesTheRunningJobsAsTheyAre) {
  const World w(Eight(), BBorrowsAll());
  EXPECT_EQ(with_claims(w.running, {}), w.running);
}

// The benchmark's over-reclaim: a's first 4-GPU job reclaims b's borrowed half; a's second
// 4-GPU job, deciding before the victims have ended, must see a at its quota (it would borrow,
// and a borrower preempts nothing), not reclaim another 4.
TEST(ReclaimInFlight, ASecondJobOfTheSameShareDoesNotReclaimTheSameQuotaAgain) {
  const World w(Eight(), BBorrowsAll());
  const PendingJob first = Pending(20).share("a").request("gpu", 4).resolve(w.policy);
  const VictimChoice choice = pick_victims(w.ledger(), first, w.family("gpu"), 4, w.running, kNow);
  ASSERT_TRUE(choice.possible);
  ASSERT_EQ(choice.victims.size(), 4u);

  const PendingJob second = Pending(21).share("a").request("gpu", 4).resolve(w.policy);
  const auto claims = std::vector{ClaimOf(w, first, choice)};
  const std::vector<RunningJob> seen = with_claims(w.running, claims);
  const Ledger ledger(w.policy, seen);
  EXPECT_EQ(ledger.usage(w.share("a"), w.family("gpu")), 4);
  EXPECT_EQ(ledger.usage(w.share("b"), w.family("gpu")), 4);
  const VictimChoice again = pick_victims(ledger, second, w.family("gpu"), 4, seen, kNow);
  EXPECT_FALSE(again.possible);
  EXPECT_TRUE(again.victims.empty());
  for (const RunningJob& r : seen) {
    EXPECT_FALSE(may_preempt(ledger, second, w.family("gpu"), 4, r, kNow)) << r.id;
  }

  // Without the claim the second job would reclaim 4 more GPUs from b, taking b below its quota
  // once the first job's victims are gone.
  const VictimChoice blind = pick_victims(w.ledger(), second, w.family("gpu"), 4, w.running, kNow);
  EXPECT_TRUE(blind.possible);
}

// Another share's job that is within quota never picks victims already on their way out.
TEST(ReclaimInFlight, AnotherShareNeverPicksTheVictimsOfAClaim) {
  Cluster cluster = Cluster()
                        .family("gpu", Unit::Gpu, 8)
                        .share("a", "gpu", 2)
                        .share("b", "gpu", 2)
                        .share("c", "gpu", 4)
                        .reclaim_min_runtime(0);
  // c borrows: it runs 8 one-GPU jobs, quota 4.
  std::vector<Running> jobs;
  for (JobId id = 1; id <= 8; ++id) {
    jobs.push_back(Running(id).share("c").family("gpu").amount(1).started(100 * id));
  }
  const World w(cluster, jobs);
  const PendingJob by_a = Pending(20).share("a").request("gpu", 2).resolve(w.policy);
  const VictimChoice first = pick_victims(w.ledger(), by_a, w.family("gpu"), 2, w.running, kNow);
  ASSERT_TRUE(first.possible);
  const auto claims = std::vector{ClaimOf(w, by_a, first)};
  const std::vector<RunningJob> seen = with_claims(w.running, claims);
  const PendingJob by_b = Pending(21).share("b").request("gpu", 2).resolve(w.policy);
  const VictimChoice second =
      pick_victims(Ledger(w.policy, seen), by_b, w.family("gpu"), 2, seen, kNow);
  ASSERT_TRUE(second.possible);
  for (const Victim& v : second.victims) {
    for (const Victim& taken : first.victims) EXPECT_NE(v.id, taken.id);
  }
  // c ends exactly at its quota after both.
  World after(cluster, jobs);
  after.apply(first, by_a, w.family("gpu"), 2, kNow);
  after.apply(second, by_b, w.family("gpu"), 2, kNow);
  EXPECT_EQ(after.usage("c", "gpu"), 4);
}

// The lifetime slurmctld and the tool both give a claim: PreemptGraceTime (never below 0) plus
// the job-end allowance (KillWait 5 + 2 x MessageTimeout 10 + 10 = 35 here).
TEST(ClaimLifetime, IsTheGraceTimeNeverBelowZeroPlusTheJobEndAllowance) {
  EXPECT_EQ(claim_lifetime_s(60, 35), 95);
  EXPECT_EQ(claim_lifetime_s(0, 35), 35);
  EXPECT_EQ(claim_lifetime_s(-5, 35), 35);
}

}  // namespace
}  // namespace shareq::policy::testing
