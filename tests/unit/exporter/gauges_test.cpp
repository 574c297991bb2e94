// The gauges say what shareq status says, from the same ClusterState.
#include "gauges.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "../test_configs.hpp"
#include "policy/ordering.hpp"
#include "queue_report.hpp"
#include "tool_builders.hpp"

namespace shareq::exporter {
namespace {

using tool::testing::Job;

const Config kConfig = shareq::testing::must_parse(shareq::testing::kWeightedClusterConf);

std::optional<double> value(const std::vector<MetricFamily>& families, const std::string& name,
                            const Labels& labels) {
  for (const MetricFamily& family : families) {
    if (family.name != name) continue;
    for (const Sample& sample : family.samples) {
      if (sample.labels == labels) return sample.value;
    }
  }
  return std::nullopt;
}

TEST(Gauges, UsageBorrowedLimitsAndPendingByTier) {
  tool::ClusterData data;
  data.now = 1000;
  data.jobs = {Job(1).share("prodexp2").gpus(16).partitions({"p5"}).running(100),
               Job(2).share("prodexp2").gpus(8).partitions({"p5"}).running(100),
               Job(3).share("research").gpus(8).partitions({"p5"}).running(100),
               Job(4)
                   .share("research")
                   .gpus(4)
                   .partitions({"p5"})
                   .slurm_priority(policy::kWithinQuotaTier + 5)
                   .pending(400),
               Job(5).share("research").gpus(8).partitions({"p5"}).slurm_priority(7).pending(700),
               Job(6).share("research").gpus(8).partitions({"p5"}).slurm_priority(7).pending(900)};
  const tool::ClusterState state(kConfig, data);
  const auto metrics = gauge_metrics(state, {}, {});
  const Labels p5_research{{"family", "p5"}, {"share", "research"}};
  const Labels p5_prodexp2{{"family", "p5"}, {"share", "prodexp2"}};
  EXPECT_EQ(value(metrics, "shareq_family_capacity", {{"family", "p5"}, {"unit", "gres/gpu"}}), 32);
  EXPECT_EQ(value(metrics, "shareq_share_quota", p5_research), 16);
  EXPECT_EQ(value(metrics, "shareq_share_usage", p5_prodexp2), 24);
  EXPECT_EQ(value(metrics, "shareq_share_borrowed", p5_prodexp2), 8);
  EXPECT_EQ(value(metrics, "shareq_running_jobs", p5_prodexp2), 2);
  EXPECT_EQ(value(metrics, "shareq_share_borrow_limit", p5_research), 8);
  EXPECT_EQ(value(metrics, "shareq_share_borrow_limit", p5_prodexp2), std::nullopt);  // UNLIMITED
  EXPECT_EQ(value(metrics, "shareq_share_lend_limit", p5_research), std::nullopt);
  EXPECT_EQ(value(metrics, "shareq_share_borrow_weight", p5_research), 2.5);
  EXPECT_EQ(value(metrics, "shareq_share_borrow_weight", p5_prodexp2), 1);  // not set
  Labels within = p5_research;
  within.emplace_back("tier", "within_quota");
  Labels borrow = p5_research;
  borrow.emplace_back("tier", "borrow");
  EXPECT_EQ(value(metrics, "shareq_pending_jobs", within), 1);
  EXPECT_EQ(value(metrics, "shareq_pending_jobs", borrow), 2);
  EXPECT_EQ(value(metrics, "shareq_oldest_pending_seconds", within), 600);
  EXPECT_EQ(value(metrics, "shareq_oldest_pending_seconds", borrow), 300);
}

// scontrol update JobId=N Priority=P: Slurm's priority is the operator's, any value, and says
// nothing of the tier; the core still ranks the job by its share's quota (priority/shareq's
// prioritize_queue, shareq queue's TIER), and so does the gauge.
TEST(Gauges, APendingJobWhosePriorityAnOperatorSetIsInTheCoresTier) {
  tool::ClusterData data;
  data.now = 1000;
  data.jobs = {Job(3).share("research").gpus(8).partitions({"p5"}).running(100),
               // Within research's quota (8 of 16 held, 4 more fit), set low by an operator.
               Job(4).share("research").gpus(4).partitions({"p5"}).slurm_priority(100).pending(400),
               // Would borrow (8 + 4 + 12 > 16), set high by an operator: the within-quota bit.
               Job(5)
                   .share("research")
                   .gpus(12)
                   .partitions({"p5"})
                   .slurm_priority(policy::kWithinQuotaTier + 1000)
                   .pending(500)};
  const tool::ClusterState state(kConfig, data);
  const auto metrics = gauge_metrics(state, {}, {});
  const Labels within{{"family", "p5"}, {"share", "research"}, {"tier", "within_quota"}};
  const Labels borrow{{"family", "p5"}, {"share", "research"}, {"tier", "borrow"}};
  EXPECT_EQ(value(metrics, "shareq_pending_jobs", within), 1);
  EXPECT_EQ(value(metrics, "shareq_pending_jobs", borrow), 1);
  EXPECT_EQ(value(metrics, "shareq_oldest_pending_seconds", within), 600);  // job 4's
  EXPECT_EQ(value(metrics, "shareq_oldest_pending_seconds", borrow), 500);  // job 5's
  const std::map<uint32_t, bool> core = tool::within_quota_of(state);
  EXPECT_TRUE(core.at(4));
  EXPECT_FALSE(core.at(5));
}

TEST(Gauges, WarmPoolsByFamilyAndState) {
  tool::ClusterData data;
  data.now = 1000;
  const tool::ClusterState state(kConfig, data);
  const std::vector<tool::NodeInfo> nodes = {
      {"p5n1", "shareq:wp-1,available,owner=alice/research,until=2000,key=k", {"p5"}, 8},
      {"p5n2", "shareq:wp-1,available,owner=alice/research,until=2000,key=k", {"p5"}, 8},
      {"p4n1", "", {"p4"}, 0}};
  const auto metrics = gauge_metrics(state, tool::collect_pools(nodes), nodes);
  EXPECT_EQ(value(metrics, "shareq_warm_pools", {{"family", "p5"}, {"state", "available"}}), 1);
  EXPECT_EQ(value(metrics, "shareq_warm_pool_nodes", {{"family", "p5"}}), 2);
  EXPECT_EQ(value(metrics, "shareq_warm_pool_nodes", {{"family", "p4"}}), 0);
}

}  // namespace
}  // namespace shareq::exporter
