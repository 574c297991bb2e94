// partition_priority: a job's priority in each of its partitions (ordering.hpp), case by case.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "policy/ordering.hpp"
#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

// Three families of one partition each (named as the family); partition "cpu" is in none.
Policy Families() {
  return Cluster()
      .family("p5", Unit::Gpu, 8)
      .family("p4", Unit::Node, 12)
      .family("p4de", Unit::Node, 4)
      .share("a", "p5", 8)
      .share("a", "p4", 4)
      .build();
}

constexpr uint32_t kJobPriority = 777;  // the job's own priority, as Slurm holds it

struct PartitionCase {
  std::string name;
  std::string partition;
  std::vector<std::pair<std::string, uint32_t>> in_family;  // the job's priority per family
  std::vector<std::string> later;  // families it may not start in yet (FallbackDelay)
  uint32_t want;
};

void PrintTo(const PartitionCase& c, std::ostream* os) { *os << c.name; }

class PartitionPriority : public ::testing::TestWithParam<PartitionCase> {};

TEST_P(PartitionPriority, Is) {
  const PartitionCase& c = GetParam();
  const Policy policy = Families();
  PendingJob pending;
  pending.share = policy.share_id("a").value();
  PriorityFactors factors;
  factors.priority = kJobPriority;
  for (const auto& [family, value] : c.in_family) {
    factors.in_family.emplace_back(policy.family_id(family).value(), value);
  }
  for (const std::string& family : c.later) {
    pending.later.push_back({policy.family_id(family).value(), 1, 300});
  }
  EXPECT_EQ(partition_priority(policy, c.partition, pending, factors, kJobPriority), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PartitionPriority,
    ::testing::Values(
        PartitionCase{"partition_in_no_family_gets_the_jobs_priority",
                      "cpu",
                      {{"p5", 500}, {"p4", 300}},
                      {},
                      kJobPriority},
        PartitionCase{"unknown_partition_gets_the_jobs_priority", "nosuch", {}, {}, kJobPriority},
        PartitionCase{"family_with_a_priority_gets_it", "p4", {{"p5", 500}, {"p4", 300}}, {}, 300},
        PartitionCase{"its_best_family_gets_its_own", "p5", {{"p5", 500}, {"p4", 300}}, {}, 500},
        PartitionCase{
            "a_priority_of_0_in_a_family_is_raised_to_1", "p4", {{"p5", 500}, {"p4", 0}}, {}, 1},
        PartitionCase{
            "fallback_family_before_its_delay_gets_1", "p4", {{"p5", 500}, {"p4", 300}}, {"p4"}, 1},
        PartitionCase{"fallback_family_before_its_delay_gets_1_without_a_family_priority",
                      "p4",
                      {},
                      {"p4"},
                      1},
        PartitionCase{"home_family_while_a_fallback_waits_keeps_its_priority",
                      "p5",
                      {{"p5", 500}},
                      {"p4"},
                      500},
        PartitionCase{"family_without_quota_among_priced_ones_gets_1",
                      "p4de",
                      {{"p5", 500}, {"p4", 300}},
                      {},
                      1},
        PartitionCase{
            "job_of_one_family_gets_its_priority_everywhere", "p4", {}, {}, kJobPriority}));

}  // namespace
}  // namespace shareq::policy::testing
