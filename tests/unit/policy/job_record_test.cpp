// The one translation of a Slurm job (policy/job_record.hpp): share from the account, families
// from the partitions, amounts in each family's unit, priority from job_submit/shareq's tag.
#include <gtest/gtest.h>

#include "config.hpp"
#include "policy/job_record.hpp"

namespace shareq::policy {
namespace {

Policy Compiled(std::string_view unlisted = "refuse") {
  const ParseResult parsed = parse_config("UnlistedAccounts=" + std::string(unlisted) +
                                              "\n"
                                              "Family=p4 Partitions=p4,p4b Capacity=node=4\n"
                                              "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
                                              "Share=ProdExp1 Family=p4 Quota=node=2\n"
                                              "Share=ProdExp2 Family=p4 Quota=node=2\n"
                                              "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"
                                              "Share=Research Family=p5 Quota=gres/gpu=16\n"
                                              "DefaultPriority=40\n",
                                          "test.conf");
  EXPECT_TRUE(parsed.config.has_value());
  return Policy::compile(*parsed.config);
}

JobRecord Job(std::string account, std::vector<std::string> partitions, int64_t nodes, int64_t gpus,
              std::string admin_comment = "") {
  return {
      42,  std::move(account), std::move(partitions), nodes, gpus, std::move(admin_comment), 900,
      1000};
}

TEST(JobRecord, ARunningNodeJobCountsNodesUnderItsAccountsShareWithItsTagsPriority) {
  const Policy p = Compiled();
  const auto r =
      as_running(p, Job("PRODEXP1", {"p4"}, 3, 16,
                        "shareq:share=prodexp1,priority=80,keep_alive=0 shareq-warm-start:wp-1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 42U);
  EXPECT_EQ(r->share, *p.share_id("prodexp1"));
  EXPECT_EQ(r->family, *p.family_id("p4"));
  EXPECT_EQ(r->amount, 3);  // nodes, not GPUs, in a node family
  EXPECT_EQ(r->priority, 80);
  EXPECT_EQ(r->start_time, 1000);
}

TEST(JobRecord, ARunningGpuJobCountsGpusAndWithoutATagHasTheDefaultPriority) {
  const Policy p = Compiled();
  const auto r = as_running(p, Job("research", {"p5"}, 2, 16));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->family, *p.family_id("p5"));
  EXPECT_EQ(r->amount, 16);
  EXPECT_EQ(r->priority, 40);
}

TEST(JobRecord, OnlyAValidTagGivesThePriority) {
  const Policy p = Compiled();
  EXPECT_EQ(submitted_priority(p, "shareq:share=research,priority=7,keep_alive=0"), 7);
  EXPECT_EQ(submitted_priority(p, "shareq:share=research,priority=150,keep_alive=0"), 40);
  EXPECT_EQ(submitted_priority(p, "set by an admin"), 40);
  EXPECT_EQ(submitted_priority(p, ""), 40);
}

TEST(JobRecord, JobsOutsideFamiliesOrSharesAreNotGoverned) {
  const Policy p = Compiled();
  EXPECT_FALSE(as_running(p, Job("prodexp1", {"debug"}, 1, 0)));
  EXPECT_FALSE(as_pending(p, Job("prodexp1", {"debug"}, 1, 0), 0));
  EXPECT_FALSE(as_running(p, Job("nobody", {"p4"}, 1, 0)));
  EXPECT_FALSE(as_pending(p, Job("nobody", {"p4"}, 1, 0), 0));
  EXPECT_FALSE(as_running(p, Job("prodexp1", {}, 1, 0)));
}

TEST(JobRecord, TheTagsShareWinsOverTheAccount) {
  const Policy p = Compiled();
  // A sub-account's job: job_submit/shareq tagged it with its parent's share.
  const auto r = as_running(
      p, Job("prodexp1-ranking", {"p4"}, 1, 0, "shareq:share=prodexp1,priority=60,keep_alive=0"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->share, *p.share_id("prodexp1"));
  const auto q = as_pending(
      p, Job("prodexp1-ranking", {"p4"}, 1, 0, "shareq:share=prodexp1,priority=60,keep_alive=0"),
      0);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->share, *p.share_id("prodexp1"));
}

TEST(JobRecord, UnlistedAccountsGoToTheUnlistedShareUnderBorrow) {
  const Policy p = Compiled("borrow");
  ASSERT_TRUE(p.unlisted_share());
  const auto tagged = as_pending(
      p, Job("physics", {"p4"}, 1, 0, "shareq:share=(unlisted),priority=50,keep_alive=0"), 0);
  ASSERT_TRUE(tagged);
  EXPECT_EQ(tagged->share, *p.unlisted_share());
  const auto untagged = as_running(p, Job("nobody", {"p4"}, 1, 0));  // from before shareq
  ASSERT_TRUE(untagged);
  EXPECT_EQ(untagged->share, *p.unlisted_share());
  EXPECT_FALSE(Compiled("refuse").unlisted_share());
}

TEST(JobRecord, NiceComesThrough) {
  JobRecord job = Job("prodexp1", {"p4"}, 1, 0);
  job.nice = 1000;
  const auto q = as_pending(Compiled(), job, 0);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->nice, 1000);
}

TEST(JobRecord, APendingJobAsksEachFamilyOnceInPartitionOrder) {
  const Policy p = Compiled();
  const auto job = as_pending(p, Job("ProdExp2", {"p5", "debug", "p4", "p4b"}, 2, 16), 0);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->share, *p.share_id("prodexp2"));
  EXPECT_EQ(job->submit_time, 900);
  ASSERT_EQ(job->requests.size(), 2U);
  EXPECT_EQ(job->requests[0], (FamilyRequest{*p.family_id("p5"), 16}));
  EXPECT_EQ(job->requests[1], (FamilyRequest{*p.family_id("p4"), 2}));
}

}  // namespace
}  // namespace shareq::policy
