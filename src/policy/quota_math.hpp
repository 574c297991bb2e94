// Saturating arithmetic on amounts and limits (internal to the policy core). Amounts are
// non-negative; kUnlimited is absorbing, so an unlimited limit never turns into a number.
#pragma once

#include <algorithm>
#include <cstdint>

#include "policy/policy.hpp"

namespace shareq::policy::math {

// a + b, saturating at kUnlimited; negative inputs count as 0.
inline int64_t add(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  return a > kUnlimited - b ? kUnlimited : a + b;
}

// a - b, never below 0; kUnlimited - anything stays kUnlimited.
inline int64_t sub(int64_t a, int64_t b) {
  if (a == kUnlimited) return kUnlimited;
  b = std::max<int64_t>(b, 0);
  return a > b ? a - b : 0;
}

// What a share holds beyond its quota.
inline int64_t over(int64_t usage, int64_t quota) { return sub(usage, quota); }

// The part of a share's quota it does not use.
inline int64_t unused(int64_t usage, int64_t quota) { return sub(quota, usage); }

}  // namespace shareq::policy::math
