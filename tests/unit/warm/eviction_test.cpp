// plan_eviction: LRU order, pins, ties, incoming bytes, saturation.
#include <gtest/gtest.h>

#include "warm/eviction.hpp"

namespace shareq::warm {
namespace {

using Digests = std::vector<std::string>;

struct EvictCase {
  const char* name;
  std::vector<CacheEntry> entries;
  int64_t capacity;
  int64_t incoming;
  EvictionPlan expected;
};

TEST(Eviction, Plans) {
  const std::vector<EvictCase> cases = {
      {"fits: nothing to do",
       {{"a", 10, 1, false}, {"b", 10, 2, false}},
       20,
       0,
       {{}, 20, 20, true}},
      {"least recently used first",
       {{"a", 10, 5, false}, {"b", 10, 1, false}, {"c", 10, 3, false}},
       15,
       0,
       {{"b", "c"}, 30, 10, true}},
      {"pinned are never evicted",
       {{"a", 10, 1, true}, {"b", 10, 2, false}, {"c", 10, 3, false}},
       15,
       0,
       {{"b", "c"}, 30, 10, true}},
      {"room for an incoming image",
       {{"a", 10, 1, false}, {"b", 10, 2, false}},
       25,
       10,
       {{"a"}, 20, 10, true}},
      {"ties: larger first, then digest",
       {{"b", 5, 1, false}, {"a", 5, 1, false}, {"c", 9, 1, false}},
       6,
       0,
       {{"c", "a"}, 19, 5, true}},
      {"cannot fit: every unpinned goes, fits is false",
       {{"a", 10, 1, true}, {"b", 10, 2, false}},
       5,
       0,
       {{"b"}, 20, 10, false}},
      {"empty cache, image bigger than the cache", {}, 5, 10, {{}, 0, 0, false}},
      {"zero capacity", {{"a", 0, 1, false}, {"b", 1, 2, false}}, 0, 0, {{"b"}, 1, 0, true}},
  };
  for (const EvictCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plan_eviction(c.entries, c.capacity, c.incoming), c.expected);
  }
}

TEST(Eviction, SaturatesHugeSizes) {
  const int64_t huge = INT64_MAX - 1;
  const EvictionPlan plan = plan_eviction({{"a", huge, 1, true}, {"b", huge, 2, false}}, 10);
  EXPECT_EQ(plan.bytes_before, INT64_MAX);
  EXPECT_FALSE(plan.fits);
  EXPECT_EQ(plan.evict, Digests{"b"});
}

}  // namespace
}  // namespace shareq::warm
