// GPU packing: a job that runs on one node goes where it leaves the fewest GPUs free.
//
// cons_tres, left to itself, takes the first node (in node order) with room for a job: small
// jobs scatter over the nodes, and a job that needs a whole node (8 GPUs) waits although the
// family has 8 GPUs free, 4 here and 4 there. Best fit keeps the free GPUs together: a 2-GPU job
// goes to a node with 2 free rather than to an empty one. The select wrapper offers cons_tres the
// best-fit nodes first and, when it finds no room there (CPUs, memory), every node.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace shareq::policy {

struct NodeGpus {
  int index = 0;     // the caller's node index
  int64_t free = 0;  // GPUs not allocated to a job on the node
};

// The indices of the nodes whose free GPUs hold `gpus` with the fewest left over (every node
// tied at that count), in the order given. Empty when `gpus` <= 0, when no node holds it, or when
// it would not narrow the choice (every node that holds it is tied).
std::vector<int> best_fit_nodes(std::span<const NodeGpus> nodes, int64_t gpus);

}  // namespace shareq::policy
