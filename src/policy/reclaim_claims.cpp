#include "policy/reclaim_claims.hpp"

#include <algorithm>
#include <unordered_set>

namespace shareq::policy {

std::vector<RunningJob> with_claims(std::span<const RunningJob> running,
                                    std::span<const ReclaimClaim> claims) {
  std::unordered_set<JobId> leaving;
  std::unordered_set<JobId> present;
  for (const ReclaimClaim& c : claims) leaving.insert(c.victims.begin(), c.victims.end());
  std::vector<RunningJob> out;
  out.reserve(running.size() + claims.size());
  for (const RunningJob& r : running) {
    present.insert(r.id);
    if (!leaving.contains(r.id)) out.push_back(r);
  }
  for (const ReclaimClaim& c : claims) {
    if (present.contains(c.job)) continue;
    out.push_back(RunningJob{c.job, c.share, c.family, c.amount, c.priority, c.since});
    present.insert(c.job);
  }
  std::sort(out.begin(), out.end(),
            [](const RunningJob& a, const RunningJob& b) { return a.id < b.id; });
  return out;
}

}  // namespace shareq::policy
