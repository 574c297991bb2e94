#include "policy/gpu_packing.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace shareq::policy {
namespace {

struct Case {
  const char* name;
  std::vector<NodeGpus> nodes;
  int64_t gpus;
  std::vector<int> expected;
};

class BestFit : public testing::TestWithParam<Case> {};

TEST_P(BestFit, PicksTheNodesLeavingFewestGpusFree) {
  const Case& c = GetParam();
  EXPECT_EQ(best_fit_nodes(c.nodes, c.gpus), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Packing, BestFit,
    testing::Values(
        Case{"SmallJobGoesToTheFullestNodeNotTheEmptyOne", {{0, 8}, {1, 2}, {2, 4}}, 2, {1}},
        Case{"NodesTooSmallAreNeverPicked", {{0, 1}, {1, 3}, {2, 8}}, 2, {1}},
        Case{"EveryNodeTiedAtTheTightestCountIsOffered",
             {{0, 4}, {1, 8}, {2, 4}, {3, 2}},
             4,
             {0, 2}},
        Case{"WholeNodeJobHasNoPreferenceAmongEmptyNodes", {{0, 8}, {1, 8}, {2, 3}}, 8, {}},
        Case{"NoNodeHoldsTheJob", {{0, 1}, {1, 3}}, 4, {}},
        Case{"OneNodeHoldsItNothingToNarrow", {{0, 1}, {1, 6}}, 4, {}},
        Case{"JobWithoutGpusIsNotPacked", {{0, 8}, {1, 2}}, 0, {}}, Case{"NoNodes", {}, 2, {}},
        Case{"IndicesAreTheCallersInTheGivenOrder", {{7, 2}, {3, 8}, {5, 2}}, 2, {7, 5}}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace shareq::policy
