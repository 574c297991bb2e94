#include "recent_ends.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "slurm_conf_access.hpp"

#pragma weak cg_node_bitmap  // slurmctld-only: this plugin also loads in slurmd and clients

namespace shareq::select {
namespace {

struct Ended {
  time_t at = 0;
  std::vector<int> nodes;  // node indexes
};

std::mutex g_mutex;
std::vector<Ended> g_ended;  // oldest first

// Forgets the ends older than the time worth waiting. g_mutex held.
void prune_locked(time_t now) {
  const time_t oldest = now - ctld::job_end_allowance_s();
  const auto kept =
      std::find_if(g_ended.begin(), g_ended.end(), [&](const Ended& e) { return e.at >= oldest; });
  g_ended.erase(g_ended.begin(), kept);
}

}  // namespace

void job_ended(const job_record_t* job, time_t now) {
  if (job == nullptr || job->node_bitmap == nullptr) return;
  Ended ended{now, {}};
  const int64_t last = bit_fls(job->node_bitmap);
  for (int64_t i = bit_ffs(job->node_bitmap); i >= 0 && i <= last; ++i) {
    if (bit_test(job->node_bitmap, i)) ended.nodes.push_back(static_cast<int>(i));
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  prune_locked(now);
  g_ended.push_back(std::move(ended));
}

std::vector<policy::CompletingNode> completing_nodes(const part_record_t* partition,
                                                     policy::FamilyId family, time_t now) {
  std::vector<policy::CompletingNode> out;
  if (&cg_node_bitmap == nullptr || cg_node_bitmap == nullptr || partition == nullptr ||
      partition->node_bitmap == nullptr) {
    return out;
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  prune_locked(now);
  for (const Ended& e : g_ended) {
    for (const int i : e.nodes) {
      if (bit_test(cg_node_bitmap, i) && bit_test(partition->node_bitmap, i)) {
        out.push_back({family, e.at});
      }
    }
  }
  return out;
}

}  // namespace shareq::select
