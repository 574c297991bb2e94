// Which cached images to evict so the node's image cache fits ImageCacheSize. Pure: the image
// cache lists its entries and applies the plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "warm/jobs.hpp"

namespace shareq::warm {

struct CacheEntry {
  std::string digest;   // 64 lower-case hex
  int64_t size = 0;     // bytes
  Time last_used = 0;   // when a job last asked for it
  bool pinned = false;  // held by a running job or a warm pool: never evicted
  bool operator==(const CacheEntry&) const = default;
};

struct EvictionPlan {
  std::vector<std::string> evict;  // digests, in eviction order
  int64_t bytes_before = 0;        // total of all entries
  int64_t bytes_after = 0;         // total once `evict` is gone
  bool fits = true;                // bytes_after + incoming <= capacity
  bool operator==(const EvictionPlan&) const = default;
};

// Evicts unpinned, non-empty entries, least recently used first (ties: the larger first, then the
// lower digest), until the entries left plus `incoming` bytes fit in `capacity`. When even evicting
// every unpinned entry is not enough, all unpinned entries are evicted and `fits` is false (the
// cache stays over its size until pins are released; a job is never refused for it). Sizes are
// summed with saturation. Preconditions: none (negative sizes count as 0).
EvictionPlan plan_eviction(std::vector<CacheEntry> entries, int64_t capacity, int64_t incoming = 0);

}  // namespace shareq::warm
