#include "recent_ends.hpp"

#include <algorithm>
#include <vector>

#include "controller_state.hpp"
#include "slurm_conf_access.hpp"

#pragma weak cg_node_bitmap  // slurmctld-only: this plugin also loads in slurmd and clients

namespace shareq::select {
namespace {

using Ended = ctld::RecentEndsPart::Ended;

// Forgets the ends older than the time worth waiting. Its mutex held.
void prune_locked(ctld::RecentEndsPart& ends, time_t now) {
  const time_t oldest = now - ctld::job_end_allowance_s();
  const auto kept = std::find_if(ends.ended.begin(), ends.ended.end(),
                                 [&](const Ended& e) { return e.at >= oldest; });
  ends.ended.erase(ends.ended.begin(), kept);
}

}  // namespace

void job_ended(const job_record_t* job, time_t now) {
  if (job == nullptr || job->node_bitmap == nullptr) return;
  Ended ended{now, {}};
  const int64_t last = bit_fls(job->node_bitmap);
  for (int64_t i = bit_ffs(job->node_bitmap); i >= 0 && i <= last; ++i) {
    if (bit_test(job->node_bitmap, i)) ended.nodes.push_back(static_cast<int>(i));
  }
  ctld::RecentEndsPart& ends = ctld::controller_state().recent_ends;
  const ctld::RankedLock lock(ends.mutex);
  prune_locked(ends, now);
  ends.ended.push_back(std::move(ended));
}

std::vector<policy::CompletingNode> completing_nodes(const part_record_t* partition,
                                                     policy::FamilyId family, time_t now) {
  std::vector<policy::CompletingNode> out;
  if (&cg_node_bitmap == nullptr || cg_node_bitmap == nullptr || partition == nullptr ||
      partition->node_bitmap == nullptr) {
    return out;
  }
  ctld::RecentEndsPart& ends = ctld::controller_state().recent_ends;
  const ctld::RankedLock lock(ends.mutex);
  prune_locked(ends, now);
  for (const Ended& e : ends.ended) {
    for (const int i : e.nodes) {
      if (bit_test(cg_node_bitmap, i) && bit_test(partition->node_bitmap, i)) {
        out.push_back({family, e.at});
      }
    }
  }
  return out;
}

}  // namespace shareq::select
