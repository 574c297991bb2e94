#include "sim/node_pool.hpp"

#include <algorithm>

namespace shareq::sim {

NodePool::NodePool(std::vector<int64_t> gpus, const std::vector<std::vector<int>>& groups)
    : free_(std::move(gpus)),
      members_(groups),
      groups_of_(free_.size()),
      by_free_(groups.size()),
      histogram_(groups.size()) {
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int node : groups[g]) {
      groups_of_[node].push_back(static_cast<int>(g));
      by_free_[g].emplace(free_[node], node);
      if (free_[node] > 0) ++histogram_[g][free_[node]];
    }
    std::sort(members_[g].begin(), members_[g].end());
  }
}

std::optional<std::vector<int>> NodePool::best_fit(int group, int64_t per_node,
                                                   int64_t count) const {
  std::vector<int> nodes;
  const auto& set = by_free_[group];
  for (auto it = set.lower_bound({per_node, -1}); it != set.end(); ++it) {
    if (static_cast<int64_t>(nodes.size()) == count) break;
    nodes.push_back(it->second);
  }
  if (static_cast<int64_t>(nodes.size()) < count) return std::nullopt;
  return nodes;
}

std::optional<std::vector<int>> NodePool::first_fit(int group, int64_t per_node,
                                                    int64_t count) const {
  std::vector<int> nodes;
  for (int node : members_[group]) {
    if (static_cast<int64_t>(nodes.size()) == count) break;
    if (free_[node] >= per_node) nodes.push_back(node);
  }
  if (static_cast<int64_t>(nodes.size()) < count) return std::nullopt;
  return nodes;
}

void NodePool::set_free(int node, int64_t value) {
  for (int g : groups_of_[node]) {
    by_free_[g].erase({free_[node], node});
    by_free_[g].emplace(value, node);
    auto& histogram = histogram_[g];
    if (free_[node] > 0 && --histogram[free_[node]] == 0) histogram.erase(free_[node]);
    if (value > 0) ++histogram[value];
  }
  free_[node] = value;
}

void NodePool::allocate(const std::vector<int>& nodes, int64_t per_node) {
  for (int node : nodes) set_free(node, free_[node] - per_node);
}

void NodePool::release(const std::vector<int>& nodes, int64_t per_node) {
  for (int node : nodes) set_free(node, free_[node] + per_node);
}

namespace {

// Places one job of `count` nodes x `per_node` on the histogram, best fit; false if no room.
bool place_one(std::map<int64_t, int64_t>& free, int64_t per_node, int64_t count) {
  std::vector<std::pair<int64_t, int64_t>> taken;  // (free value, nodes)
  int64_t left = count;
  for (auto it = free.lower_bound(per_node); it != free.end() && left > 0; ++it) {
    const int64_t take = std::min(left, it->second);
    taken.emplace_back(it->first, take);
    left -= take;
  }
  if (left > 0) return false;
  for (const auto& [value, nodes] : taken) {
    if ((free[value] -= nodes) == 0) free.erase(value);
    if (value - per_node > 0) free[value - per_node] += nodes;
  }
  return true;
}

}  // namespace

int64_t placeable_gpus(std::map<int64_t, int64_t> free,
                       const std::map<std::pair<int64_t, int64_t>, int64_t>& waiting,
                       int64_t limit) {
  // waiting: (-gpus, per_node) -> jobs, so the largest jobs come first.
  int64_t placed = 0;
  for (const auto& [key, jobs] : waiting) {
    const int64_t gpus = -key.first, per_node = key.second;
    for (int64_t j = 0; j < jobs && placed < limit; ++j) {
      if (!place_one(free, per_node, gpus / per_node)) break;
      placed += gpus;
    }
    if (placed >= limit || free.empty()) break;
  }
  return std::min(placed, limit);
}

}  // namespace shareq::sim
