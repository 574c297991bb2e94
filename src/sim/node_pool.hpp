// The placement model: whole nodes with GPU counts. A job takes `per_node` GPUs on each of
// `nodes` nodes of one partition, chosen by best fit as select/shareq packs GPUs
// (policy/gpu_packing.hpp): the nodes with the fewest GPUs left over, ties to the first in
// slurm.conf order. Kept as ordered sets per node group (a partition or a family), so a choice
// costs O(log nodes + nodes taken), not a scan; tests check it against policy::best_fit_nodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace shareq::sim {

struct Shape {
  int partition = 0;     // index into SlurmCluster::partitions
  int64_t per_node = 0;  // GPUs on each node
  int64_t nodes = 1;
  [[nodiscard]] int64_t gpus() const { return per_node * nodes; }
  auto operator<=>(const Shape&) const = default;
};

class NodePool {
 public:
  // `gpus[n]`: node n's GPUs; `groups`: the nodes of each group (partitions, then families).
  NodePool(std::vector<int64_t> gpus, const std::vector<std::vector<int>>& groups);

  // The best-fit nodes of `group` for `per_node` GPUs on each of `count` nodes; nullopt when
  // the group has too few nodes with room.
  [[nodiscard]] std::optional<std::vector<int>> best_fit(int group, int64_t per_node,
                                                         int64_t count) const;
  // The first nodes of `group` in slurm.conf order with room for `per_node` GPUs, as cons_tres
  // itself places a job (no packing); nullopt when too few have room. O(nodes of the group).
  [[nodiscard]] std::optional<std::vector<int>> first_fit(int group, int64_t per_node,
                                                          int64_t count) const;
  void allocate(const std::vector<int>& nodes, int64_t per_node);
  void release(const std::vector<int>& nodes, int64_t per_node);

  [[nodiscard]] int64_t free(int node) const { return free_[node]; }
  // Nodes of the group by free GPUs (free > 0 only): free -> how many nodes.
  [[nodiscard]] const std::map<int64_t, int64_t>& free_histogram(int group) const {
    return histogram_[group];
  }

 private:
  void set_free(int node, int64_t value);

  std::vector<int64_t> free_;
  std::vector<std::vector<int>> members_;                   // group -> its nodes, ascending
  std::vector<std::vector<int>> groups_of_;                 // node -> its groups
  std::vector<std::set<std::pair<int64_t, int>>> by_free_;  // group -> (free, node)
  std::vector<std::map<int64_t, int64_t>> histogram_;       // group -> free -> nodes
};

// How many of `waiting` (shape, count) GPUs fit into free nodes of a histogram, largest jobs
// first, each on best-fit nodes; counts at most `limit` GPUs (stops there).
int64_t placeable_gpus(std::map<int64_t, int64_t> free,
                       const std::map<std::pair<int64_t, int64_t>, int64_t>& waiting,
                       int64_t limit);

}  // namespace shareq::sim
