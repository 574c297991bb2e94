// shareq status from plain job data: the numbers the Ledger gives, per family and share.
#include "status_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "../test_configs.hpp"
#include "policy/job_record.hpp"
#include "tool_builders.hpp"

namespace shareq::tool {
namespace {

using testing::Job;

const Config kConfig = shareq::testing::must_parse(shareq::testing::kClusterConf);

const ShareStatus& share_row(const FamilyStatus& family, std::string_view share) {
  for (const ShareStatus& row : family.shares) {
    if (row.share == share) return row;
  }
  throw std::runtime_error("no row for " + std::string(share));
}

TEST(Status, BorrowerOverItsQuotaAndPendingDemand) {
  const ClusterState state(kConfig,
                           {Job(1).share("prodexp2").gpus(16).partitions({"p5"}).running(100),
                            Job(2).share("ProdExp2").gpus(8).partitions({"p5"}).running(100),
                            Job(3).share("research").gpus(8).partitions({"p5"}).running(100),
                            Job(4).share("research").gpus(4).partitions({"p5"}).pending(),
                            Job(5).share("research").gpus(8).partitions({"p5"}).pending()});
  const auto families = family_status(state, std::string("p5"));
  ASSERT_EQ(families.size(), 1u);
  const FamilyStatus& p5 = families[0];
  EXPECT_EQ(p5.unit, Unit::Gpu);
  EXPECT_EQ(p5.capacity, 32);
  EXPECT_EQ(p5.used, 32);
  EXPECT_EQ(p5.idle, 0);
  EXPECT_EQ(p5.borrowed, 8);
  EXPECT_EQ(p5.pending_jobs, 2);
  EXPECT_EQ(p5.demand, 12);
  const ShareStatus& prodexp2 = share_row(p5, "prodexp2");
  EXPECT_EQ(prodexp2.quota, 16);
  EXPECT_EQ(prodexp2.usage, 24);
  EXPECT_EQ(prodexp2.borrowed, 8);
  EXPECT_EQ(prodexp2.running_jobs, 2);
  const ShareStatus& research = share_row(p5, "research");
  EXPECT_EQ(research.usage, 8);
  EXPECT_EQ(research.borrowed, 0);
  EXPECT_EQ(research.borrow_limit, 8);  // 50% of 16
  EXPECT_EQ(research.lend_limit, policy::kUnlimited);
  EXPECT_EQ(research.pending_jobs, 2);
  EXPECT_EQ(research.demand, 12);
}

TEST(Status, NodeFamilyCountsNodesAndAMultiFamilyJobCountsInEach) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp1").nodes(3).partitions({"p4"}).running(100),
                Job(2).share("prodexp2").nodes(1).gpus(8).partitions({"p5", "p4"}).pending()});
  const auto families = family_status(state);
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].name, "p4");
  EXPECT_EQ(families[0].used, 3);
  EXPECT_EQ(families[0].borrowed, 1);
  EXPECT_EQ(share_row(families[0], "prodexp2").demand, 1);  // one node in p4
  EXPECT_EQ(share_row(families[1], "prodexp2").demand, 8);  // eight GPUs in p5
}

TEST(Status, UnlistedAccountsShowAsTheirOwnRowOnlyWhileTheyHaveJobs) {
  const ClusterState idle(kConfig, std::vector<JobInfo>{});
  for (const FamilyStatus& family : family_status(idle, std::nullopt)) {
    for (const ShareStatus& row : family.shares) EXPECT_NE(row.share, kUnlistedShare);
  }
  const ClusterState state(kConfig,
                           {Job(1).share("physics").gpus(8).partitions({"p5"}).running(100)});
  const auto p5 = family_status(state, std::string("p5")).at(0);
  EXPECT_EQ(p5.used, 8);
  EXPECT_EQ(share_row(p5, std::string(kUnlistedShare)).borrowed, 8);
  EXPECT_EQ(share_row(p5, std::string(kUnlistedShare)).quota, 0);
}

TEST(Status, JobsShareqDoesNotGovernAndEndedJobsCountNowhere) {
  const Config refuse = shareq::testing::must_parse(std::string(shareq::testing::kClusterConf) +
                                                    "UnlistedAccounts=refuse\n");
  const ClusterState state(
      refuse,
      {Job(1).share("other").gpus(8).partitions({"p5"}).running(100),
       Job(2).share("research").gpus(8).partitions({"debug"}).running(100),
       Job(3).share("research").gpus(8).partitions({"p5"}).state(JobState::Other, "COMPLETING"),
       Job(4)
           .share("research")
           .gpus(8)
           .partitions({"p5"})
           .state(JobState::Suspended, "SUSPENDED")});
  const auto p5 = family_status(state, std::string("p5")).at(0);
  EXPECT_EQ(p5.used, 8);  // only the suspended job still holds its GPUs
  EXPECT_EQ(share_row(p5, "research").running_jobs, 1);
}

TEST(Status, TableAndJson) {
  const ClusterState state(kConfig,
                           {Job(1).share("research").gpus(24).partitions({"p5"}).running(100)});
  const auto families = family_status(state, std::string("p5"));
  const std::string table = format_status(families);
  EXPECT_NE(table.find("FAMILY  UNIT      CAPACITY  USED  IDLE  BORROWED  PENDING  DEMAND\n"
                       "p5      gres/gpu        32    24     8         8        0       0\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("p5      research     16     24         8            8  UNLIMITED"),
            std::string::npos)
      << table;
  const std::string json = format_status_json(families);
  EXPECT_NE(json.find("\"share\":\"research\",\"quota\":16,\"usage\":24,\"borrowed\":8,"
                      "\"borrow_limit\":8,\"lend_limit\":null"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.back(), '\n');
}

TEST(Status, BorrowWeightInTableAndJson) {
  const ClusterState state(shareq::testing::must_parse(shareq::testing::kWeightedClusterConf),
                           std::vector<JobInfo>{});
  const auto families = family_status(state, std::string("p5"));
  EXPECT_EQ(share_row(families.front(), "research").borrow_weight, 2500);
  EXPECT_EQ(share_row(families.front(), "prodexp2").borrow_weight, 1000);
  const std::string table = format_status(families);
  EXPECT_NE(table.find("BORROWLIMIT  LENDLIMIT  WEIGHT  RUNNING"), std::string::npos) << table;
  EXPECT_NE(table.find("UNLIMITED     2.5"), std::string::npos) << table;
  const std::string json = format_status_json(families);
  EXPECT_NE(json.find("\"lend_limit\":null,\"borrow_weight\":2.5,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"borrow_weight\":1,"), std::string::npos) << json;
}

TEST(JobTag, FirstWordOfAdminComment) {
  const auto tag = policy::submission_tag(
      "shareq:share=research,priority=80,keep_alive=0 shareq-warm-start:wp-1");
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->share, "research");
  EXPECT_EQ(tag->priority, 80);
  EXPECT_FALSE(policy::submission_tag("").has_value());
  EXPECT_FALSE(policy::submission_tag("set by an admin").has_value());
  EXPECT_FALSE(
      policy::submission_tag("shareq:share=research,priority=800,keep_alive=0").has_value());
}

TEST(JobTag, PriorityFromTheTagElseDefault) {
  JobInfo untagged = Job(2).share("research").gpus(8).partitions({"p5"}).running(100);
  untagged.admin_comment.clear();
  const ClusterState state(
      kConfig,
      {Job(1).share("research").priority(80).gpus(8).partitions({"p5"}).running(100), untagged});
  EXPECT_EQ(state.running_job(1)->priority, 80);
  EXPECT_EQ(state.running_job(2)->priority, 50);  // DefaultPriority
}

}  // namespace
}  // namespace shareq::tool
