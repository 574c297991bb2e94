// shareq queue from plain job data: the family's pending jobs in the scheduler's order, each with
// its tier and what the scheduler's own decide() does with it.
#include "queue_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "../test_configs.hpp"
#include "policy/ordering.hpp"
#include "tool_builders.hpp"

namespace shareq::tool {
namespace {

using testing::Job;

const Config kConfig =
    shareq::testing::must_parse(testing::kReportFamilies + "UnlistedAccounts=borrow\n");
constexpr int64_t kNow = testing::kReportNow;
constexpr uint32_t kWithin = policy::kWithinQuotaTier;

std::vector<uint32_t> ids(const FamilyQueue& family) {
  std::vector<uint32_t> out;
  for (const QueueEntry& e : family.jobs) out.push_back(e.job);
  return out;
}

// 8 GPUs idle in p5; research holds 2 of its 10. Slurm's priorities as priority/shareq set them:
// research's 8-GPU job within quota first, then the borrowers.
std::vector<JobInfo> mixed_queue() {
  return {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 50),
          Job(2).share("research").gpus(2).partitions({"p5"}).running(kNow - 50),
          Job(10)
              .user("bob")
              .share("prodexp2")
              .slurm_priority(1000)
              .gpus(8)
              .partitions({"p5"})
              .pending(kNow - 30),
          Job(11)
              .share("research")
              .priority(80)
              .slurm_priority(kWithin + 5000)
              .gpus(8)
              .partitions({"p5"})
              .pending(kNow - 20),
          // research's 8 GPUs ahead of it fill its quota: this one borrows
          Job(12)
              .share("research")
              .slurm_priority(2000)
              .gpus(4)
              .partitions({"p5"})
              .pending(kNow - 10)
              .expected_start(kNow + 600)};
}

TEST(Queue, SchedulerOrderAcrossTiersAndShares) {
  const ClusterState state(kConfig, mixed_queue());
  const auto families = queue_snapshot(state, {std::string("p5"), std::nullopt, 100}, kNow);
  ASSERT_EQ(families.size(), 1u);
  const FamilyQueue& p5 = families[0];
  EXPECT_EQ(p5.pending_jobs, 3u);
  EXPECT_EQ(ids(p5), (std::vector<uint32_t>{11, 12, 10}));
  const QueueEntry& first = p5.jobs[0];
  EXPECT_EQ(first.position, 1u);
  EXPECT_EQ(first.tier, QueueTier::WithinQuota);
  EXPECT_EQ(first.share, "research");
  EXPECT_EQ(first.share_priority, 80);
  EXPECT_EQ(first.slurm_priority, kWithin + 5000);
  EXPECT_EQ(first.amount, 8);
  EXPECT_EQ(first.outlook, QueueOutlook::StartsNext);
  EXPECT_EQ(first.words, "fits now");
  EXPECT_EQ(p5.jobs[1].tier, QueueTier::Borrow);
  EXPECT_EQ(p5.jobs[1].expected_start, kNow + 600);
  EXPECT_EQ(p5.jobs[2].tier, QueueTier::Borrow);
  EXPECT_EQ(p5.jobs[2].user, "bob");
  EXPECT_EQ(p5.jobs[2].share_priority, 50);  // DefaultPriority
  EXPECT_FALSE(p5.jobs[2].expected_start.has_value());
}

TEST(Queue, WaitingJobsSayWhatTheySchedulerSaysAndNoneStartsNext) {
  const ClusterState state(kConfig,
                           {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 50),
                            Job(2).share("research").gpus(10).partitions({"p5"}).running(kNow - 50),
                            Job(3).share("research").gpus(4).partitions({"p5"}).pending(kNow - 5)});
  const FamilyQueue p5 = queue_snapshot(state, {std::string("p5"), std::nullopt, 100}, kNow)[0];
  ASSERT_EQ(p5.jobs.size(), 1u);
  EXPECT_EQ(p5.jobs[0].outlook, QueueOutlook::Waits);
  EXPECT_EQ(p5.jobs[0].tier, QueueTier::Borrow);
  const policy::Decision d = state.decide(*state.pending_job(3), 0, kNow);
  EXPECT_EQ("shareq: " + p5.jobs[0].words, d.words);
  EXPECT_NE(format_queue({p5}).find("waits: " + p5.jobs[0].words), std::string::npos);
}

TEST(Queue, ShareFilterKeepsPlacesInTheWholeQueue) {
  const ClusterState state(kConfig, mixed_queue());
  const FamilyQueue p5 =
      queue_snapshot(state, {std::string("p5"), std::string("ProdExp2"), 100}, kNow)[0];
  EXPECT_EQ(p5.pending_jobs, 3u);
  EXPECT_EQ(ids(p5), std::vector<uint32_t>{10});
  EXPECT_EQ(p5.jobs[0].position, 3u);
}

TEST(Queue, LimitAndFamilyFilter) {
  const ClusterState state(kConfig, mixed_queue());
  const auto all = queue_snapshot(state, {std::nullopt, std::nullopt, 1}, kNow);
  ASSERT_EQ(all.size(), 2u);  // shareq.conf order
  EXPECT_EQ(all[0].family, "p5");
  EXPECT_EQ(ids(all[0]), std::vector<uint32_t>{11});
  EXPECT_EQ(all[1].family, "p4");
  EXPECT_TRUE(all[1].jobs.empty());
  EXPECT_NE(format_queue(all).find("family p5: 3 pending, 1 shown\n"), std::string::npos);
}

TEST(Queue, HeldJobsAreNotInTheQueueAndUnlistedAccountsAreTheirOwnTier) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(8).partitions({"p5"}).pending().slurm_priority(0),
                Job(2).share("someone").slurm_priority(10).gpus(8).partitions({"p5"}).pending()});
  const FamilyQueue p5 = queue_snapshot(state, {std::string("p5"), std::nullopt, 100}, kNow)[0];
  EXPECT_EQ(ids(p5), std::vector<uint32_t>{2});
  EXPECT_EQ(p5.jobs[0].tier, QueueTier::Unlisted);
}

TEST(Queue, BadLimitAndShareNameTheOptionAndTheAllowedValues) {
  size_t limit = 7;
  EXPECT_EQ(limit_error("12", limit), std::nullopt);
  EXPECT_EQ(limit, 12u);
  EXPECT_EQ(*limit_error("0", limit), "--limit: \"0\" is out of range; allowed: 1..1000000");
  EXPECT_NE(limit_error("ten", limit)->find("--limit: \"ten\""), std::string::npos);
  EXPECT_NE(limit_error("ten", limit)->find("allowed: 1..1000000"), std::string::npos);
  EXPECT_NE(limit_error("-3", limit)->find("allowed: 1..1000000"), std::string::npos);
  const policy::Policy policy = policy::Policy::compile(kConfig);
  EXPECT_EQ(share_error(policy, "RESEARCH"), std::nullopt);
  const std::string unknown = *share_error(policy, "nope");
  EXPECT_EQ(unknown, "--share: no share \"nope\"; shares: prodexp2, research, (unlisted)");
}

TEST(Queue, JsonShape) {
  const ClusterState state(kConfig, mixed_queue());
  const auto json = nlohmann::json::parse(
      format_queue_json(queue_snapshot(state, {std::string("p5"), std::nullopt, 2}, kNow), kNow));
  EXPECT_EQ(json["now"], kNow);
  ASSERT_EQ(json["families"].size(), 1u);
  const auto& p5 = json["families"][0];
  EXPECT_EQ(p5["family"], "p5");
  EXPECT_EQ(p5["unit"], "gres/gpu");
  EXPECT_EQ(p5["pending_jobs"], 3);
  ASSERT_EQ(p5["jobs"].size(), 2u);
  const auto& first = p5["jobs"][0];
  EXPECT_EQ(first["position"], 1);
  EXPECT_EQ(first["job_id"], 11);
  EXPECT_EQ(first["user"], "alice");
  EXPECT_EQ(first["share"], "research");
  EXPECT_EQ(first["tier"], "within_quota");
  EXPECT_EQ(first["share_priority"], 80);
  EXPECT_EQ(first["priority"], kWithin + 5000);
  EXPECT_EQ(first["nodes"], 1);
  EXPECT_EQ(first["gpus"], 8);
  EXPECT_EQ(first["amount"], 8);
  EXPECT_TRUE(first["expected_start"].is_null());
  EXPECT_EQ(first["outlook"], "starts_next");
  EXPECT_EQ(first["words"], "fits now");
  EXPECT_EQ(p5["jobs"][1]["expected_start"], kNow + 600);
  EXPECT_EQ(p5["jobs"][1]["tier"], "borrow");
}

}  // namespace
}  // namespace shareq::tool
