// Values of shareq.conf settings: amounts, limits, durations, sizes, booleans (internal header).
// Each parser returns the value or an Error whose message says what is allowed; the caller fills
// in Error::field with the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config.hpp"
#include "result.hpp"

namespace shareq::units {

// An amount of a resource: "node=N" or "gres/gpu=N" (unit name case-insensitive), N >= 0.
struct Amount {
  Unit unit = Unit::Node;
  int64_t value = 0;
};
Result<Amount> parse_amount(std::string_view text);
// The same, its messages ending "; allowed: ALLOWED" (what the caller's key takes). The unit is
// not checked against anything: the caller compares it with the family's.
Result<Amount> parse_amount(std::string_view text, std::string_view allowed);

// A borrow or lend limit in a family counted in `unit`: UNLIMITED (any case), P% with P in
// 0..100, or an amount in `unit`. With no unit (a family whose Capacity= has errors of its own)
// an amount in either unit is taken: only what does not depend on the unit is checked.
// Every message's allowed list is the one for that unit.
Result<Limit> parse_limit(std::string_view text, std::optional<Unit> unit);

// A plain non-negative integer number of seconds.
Result<int64_t> parse_seconds(std::string_view text);
// Seconds with an optional s, m, h or d suffix ("28d").
Result<int64_t> parse_duration(std::string_view text);
// The same, its messages ending "; allowed: ALLOWED" (for a key with a narrower range, which
// the caller checks).
Result<int64_t> parse_duration(std::string_view text, std::string_view allowed);
// Bytes with an optional K, M, G or T suffix, powers of 1024 ("200G").
Result<int64_t> parse_size(std::string_view text);
// yes/no, true/false, 1/0, on/off, any case.
Result<bool> parse_bool(std::string_view text);
// A share's BorrowWeight: a decimal number from 0.001 to 1000 with at most three decimals
// ("4", "0.25"), in thousandths (kBorrowWeightScale is 1).
inline constexpr int64_t kWeightScale = kBorrowWeightScale;
inline constexpr int64_t kMinWeight = 1;                    // 0.001
inline constexpr int64_t kMaxWeight = 1000 * kWeightScale;  // 1000
inline constexpr std::string_view kWeightAllowed =
    "a number from 0.001 to 1000 with at most 3 decimals (default 1; a higher weight borrows "
    "first)";
Result<int64_t> parse_weight(std::string_view text);

// The canonical spellings, which the parsers above read back to the same value.
std::string format_amount(Unit unit, int64_t value);      // "node=4"
std::string format_limit(const Limit& limit, Unit unit);  // "UNLIMITED", "50%", "node=2"
std::string format_duration(int64_t seconds);             // "28d", "90m", "61"
std::string format_size(int64_t bytes);                   // "200G", "1536K", "1000"
std::string format_weight(int64_t thousandths);           // "1", "0.25", "1000"

}  // namespace shareq::units
