#include "policy/gpu_packing.hpp"

#include <algorithm>
#include <limits>

namespace shareq::policy {

std::vector<int> best_fit_nodes(std::span<const NodeGpus> nodes, int64_t gpus) {
  if (gpus <= 0) return {};
  int64_t tightest = std::numeric_limits<int64_t>::max();
  size_t holding = 0;
  for (const NodeGpus& n : nodes) {
    if (n.free < gpus) continue;
    ++holding;
    tightest = std::min(tightest, n.free);
  }
  std::vector<int> best;
  for (const NodeGpus& n : nodes) {
    if (n.free == tightest) best.push_back(n.index);
  }
  if (best.size() == holding) return {};
  return best;
}

}  // namespace shareq::policy
