// The placement model's best fit agrees with the policy core's GPU packing (best_fit_nodes,
// the slow reference), and the placeable count packs largest first.
#include "sim/node_pool.hpp"

#include <gtest/gtest.h>

#include <random>

#include "policy/gpu_packing.hpp"

namespace shareq::sim {
namespace {

TEST(NodePool, BestFitMatchesGpuPacking) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    const int count = 1 + static_cast<int>(random() % 12);
    std::vector<int64_t> gpus(count, 8);
    std::vector<int> all(count);
    for (int i = 0; i < count; ++i) all[i] = i;
    NodePool pool(gpus, {all});
    for (int i = 0; i < count; ++i) pool.allocate({i}, static_cast<int64_t>(random() % 9));
    const int64_t want = 1 + static_cast<int64_t>(random() % 8);
    std::vector<policy::NodeGpus> nodes;
    for (int i = 0; i < count; ++i) nodes.push_back({i, pool.free(i)});
    const auto reference = policy::best_fit_nodes(nodes, want);
    const auto ours = pool.best_fit(0, want, 1);
    int first_fit = -1;
    for (int i = 0; i < count && first_fit < 0; ++i) first_fit = pool.free(i) >= want ? i : -1;
    if (!ours) {
      EXPECT_EQ(first_fit, -1);
      continue;
    }
    // The reference lists the tied best nodes (or nothing when every fitting node ties);
    // cons_tres then takes the first of them in node order.
    EXPECT_EQ(ours->front(), reference.empty() ? first_fit : reference.front());
  }
}

TEST(NodePool, FirstFitTakesTheFirstNodesWithRoomInNodeOrder) {
  // A group listed out of order is still taken in node order (slurm.conf's, cons_tres's).
  NodePool pool({8, 8, 8, 8}, {{3, 1, 0, 2}});
  pool.allocate({0}, 6);  // free: 2, 8, 8, 8
  pool.allocate({1}, 1);  // free: 2, 7, 8, 8
  EXPECT_EQ(pool.first_fit(0, 2, 1), (std::vector<int>{0}));
  EXPECT_EQ(pool.best_fit(0, 2, 1), (std::vector<int>{0}));
  EXPECT_EQ(pool.first_fit(0, 3, 2), (std::vector<int>{1, 2}));
  EXPECT_EQ(pool.first_fit(0, 8, 2), (std::vector<int>{2, 3}));
  EXPECT_EQ(pool.first_fit(0, 8, 3), std::nullopt);
  EXPECT_EQ(pool.first_fit(0, 7, 1), (std::vector<int>{1}));
}

TEST(NodePool, MultiNodeTakesTheTightestNodes) {
  NodePool pool({8, 8, 8, 8}, {{0, 1, 2, 3}});
  pool.allocate({0}, 6);
  pool.allocate({2}, 4);
  EXPECT_EQ(pool.best_fit(0, 4, 2), (std::vector<int>{2, 1}));
  EXPECT_FALSE(pool.best_fit(0, 5, 3));
}

TEST(NodePool, PlaceableCountsLargestFirstWhereFree) {
  // Two nodes with 4 free each; waiting: one 8-GPU job and two 2-GPU jobs.
  const std::map<int64_t, int64_t> free = {{4, 2}};
  const std::map<std::pair<int64_t, int64_t>, int64_t> waiting = {{{-8, 8}, 1}, {{-2, 2}, 2}};
  EXPECT_EQ(placeable_gpus(free, waiting, 100), 4);
  EXPECT_EQ(placeable_gpus(free, waiting, 3), 3);
}

}  // namespace
}  // namespace shareq::sim
