#include "warm/eviction.hpp"

#include <algorithm>
#include <limits>

namespace shareq::warm {
namespace {

int64_t add(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

// 1. least recently used first; 2. larger first; 3. lower digest (deterministic).
bool evict_before(const CacheEntry& a, const CacheEntry& b) {
  if (a.last_used != b.last_used) return a.last_used < b.last_used;
  if (a.size != b.size) return a.size > b.size;
  return a.digest < b.digest;
}

}  // namespace

EvictionPlan plan_eviction(std::vector<CacheEntry> entries, int64_t capacity, int64_t incoming) {
  EvictionPlan plan;
  for (const CacheEntry& entry : entries) plan.bytes_before = add(plan.bytes_before, entry.size);
  plan.bytes_after = plan.bytes_before;
  std::sort(entries.begin(), entries.end(), evict_before);
  for (const CacheEntry& entry : entries) {
    if (add(plan.bytes_after, incoming) <= capacity) break;
    if (entry.pinned || entry.size <= 0) continue;  // an empty entry frees nothing
    plan.evict.push_back(entry.digest);
    // Saturated totals stay saturated: they can no longer be trusted to subtract from.
    if (plan.bytes_after != std::numeric_limits<int64_t>::max()) {
      plan.bytes_after -= std::max<int64_t>(entry.size, 0);
    }
  }
  plan.fits = add(plan.bytes_after, incoming) <= capacity;
  return plan;
}

}  // namespace shareq::warm
