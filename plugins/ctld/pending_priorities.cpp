#include "pending_priorities.hpp"

#include <mutex>
#include <utility>

namespace shareq::ctld {
namespace {

std::mutex g_mutex;
uint64_t g_config_version = 0;
// Replaced, never changed in place: readers keep the copy they got.
std::shared_ptr<const std::vector<int>> g_highest;

}  // namespace

void publish_pending_priorities(uint64_t config_version, std::vector<int> highest) {
  auto published = std::make_shared<const std::vector<int>>(std::move(highest));
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_config_version = config_version;
  g_highest = std::move(published);
}

void pending_priority_seen(uint64_t config_version, policy::ShareId share, int priority) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_highest || g_config_version != config_version || share >= g_highest->size() ||
      (*g_highest)[share] >= priority) {
    return;
  }
  auto raised = std::make_shared<std::vector<int>>(*g_highest);
  (*raised)[share] = priority;
  g_highest = std::move(raised);
}

std::shared_ptr<const std::vector<int>> pending_priorities(uint64_t config_version) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return g_config_version == config_version ? g_highest : nullptr;
}

}  // namespace shareq::ctld
