#include "pending_priorities.hpp"

#include <utility>

#include "controller_state.hpp"

namespace shareq::ctld {
void publish_pending_priorities(uint64_t config_version, std::vector<int> highest) {
  auto published = std::make_shared<const std::vector<int>>(std::move(highest));
  PendingPrioritiesPart& p = controller_state().pending;
  const RankedLock lock(p.mutex);
  p.config_version = config_version;
  p.highest = std::move(published);
}

void pending_priority_seen(uint64_t config_version, policy::ShareId share, int priority) {
  PendingPrioritiesPart& p = controller_state().pending;
  const RankedLock lock(p.mutex);
  if (!p.highest || p.config_version != config_version || share >= p.highest->size() ||
      (*p.highest)[share] >= priority) {
    return;
  }
  auto raised = std::make_shared<std::vector<int>>(*p.highest);
  (*raised)[share] = priority;
  p.highest = std::move(raised);
}

std::shared_ptr<const std::vector<int>> pending_priorities(uint64_t config_version) {
  PendingPrioritiesPart& p = controller_state().pending;
  const RankedLock lock(p.mutex);
  return p.config_version == config_version ? p.highest : nullptr;
}

}  // namespace shareq::ctld
