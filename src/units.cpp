#include "units.hpp"

#include <array>
#include <limits>

#include "text.hpp"

namespace shareq::units {
namespace {

constexpr uint64_t kInt64Max = std::numeric_limits<int64_t>::max();

struct Suffix {
  char letter;
  int64_t factor;
};

constexpr std::array<Suffix, 4> kDurationSuffixes = {
    {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}};
constexpr std::array<Suffix, 4> kSizeSuffixes = {
    {{'T', 1LL << 40}, {'G', 1LL << 30}, {'M', 1LL << 20}, {'K', 1LL << 10}}};

Error fail(std::string message) { return Error{"", std::move(message)}; }

char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

template <size_t N>
Result<int64_t> parse_scaled(std::string_view text, const std::array<Suffix, N>& suffixes,
                             std::string_view allowed) {
  int64_t factor = 1;
  std::string_view digits = text;
  if (!text.empty()) {
    for (const Suffix& suffix : suffixes) {
      if (upper(text.back()) == upper(suffix.letter)) {
        factor = suffix.factor;
        digits = text.substr(0, text.size() - 1);
      }
    }
  }
  const text::Number number = text::parse_decimal(digits, kInt64Max);
  if (number.status == text::NumberStatus::Ok &&
      number.value <= kInt64Max / static_cast<uint64_t>(factor)) {
    return static_cast<int64_t>(number.value) * factor;
  }
  text::Number shown = number;
  if (shown.status == text::NumberStatus::Ok || digits.empty()) {
    shown.status = digits.empty() && !text.empty() ? text::NumberStatus::NotNumber
                                                   : text::NumberStatus::TooLarge;
  }
  return fail(text::number_message(text, shown, allowed));
}

template <size_t N>
std::string format_scaled(int64_t value, const std::array<Suffix, N>& suffixes) {
  for (const Suffix& suffix : suffixes) {
    if (value != 0 && suffix.factor > 1 && value % suffix.factor == 0) {
      return std::to_string(value / suffix.factor) + suffix.letter;
    }
  }
  return std::to_string(value);
}

std::string allowed_limit(std::optional<Unit> unit) {
  return "UNLIMITED, P% of the quota (P in 0..100), or " +
         (unit ? std::string(unit_name(*unit)) + "=N"
               : std::string("node=N or gres/gpu=N, in the family's unit")) +
         " (N in 0.." + std::to_string(kInt64Max) + ")";
}

}  // namespace

Result<Amount> parse_amount(std::string_view text) {
  return parse_amount(text, "node=N or gres/gpu=N, N a non-negative integer");
}

Result<Amount> parse_amount(std::string_view text, std::string_view allowed) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return fail(text::quote(text) + " is not an amount; allowed: " + std::string(allowed));
  }
  const std::string_view name = text.substr(0, eq);
  Amount amount;
  if (text::iequals(name, "node")) {
    amount.unit = Unit::Node;
  } else if (text::iequals(name, "gres/gpu")) {
    amount.unit = Unit::Gpu;
  } else {
    return fail("unknown unit " + text::quote(name) + "; allowed: " + std::string(allowed));
  }
  const std::string_view digits = text.substr(eq + 1);
  const text::Number number = text::parse_decimal(digits, kInt64Max);
  if (number.status != text::NumberStatus::Ok) {
    return fail(text::number_message(digits, number, allowed));
  }
  amount.value = static_cast<int64_t>(number.value);
  return amount;
}

Result<Limit> parse_limit(std::string_view text, std::optional<Unit> unit) {
  if (text::iequals(text, "UNLIMITED")) {
    return Limit{};
  }
  if (!text.empty() && text.back() == '%') {
    const std::string_view digits = text.substr(0, text.size() - 1);
    const text::Number number = text::parse_decimal(digits, 100);
    if (number.status != text::NumberStatus::Ok) {
      return fail(text::number_message(text, number, allowed_limit(unit)));
    }
    return Limit{Limit::Kind::PercentOfQuota, static_cast<int64_t>(number.value)};
  }
  if (text.find('=') == std::string_view::npos) {
    return fail(text::quote(text) + " is not a limit; allowed: " + allowed_limit(unit));
  }
  Result<Amount> amount = parse_amount(text, allowed_limit(unit));
  if (!amount) {
    return fail(amount.error().message);
  }
  if (unit && amount.value().unit != *unit) {
    return fail(text::quote(text) + " is in " + std::string(unit_name(amount.value().unit)) +
                " but the family counts " + std::string(unit_name(*unit)) +
                "; allowed: " + allowed_limit(unit));
  }
  return Limit{Limit::Kind::Amount, amount.value().value};
}

Result<int64_t> parse_seconds(std::string_view text) {
  const text::Number number = text::parse_decimal(text, kInt64Max);
  if (number.status != text::NumberStatus::Ok) {
    return fail(text::number_message(text, number, "a non-negative integer number of seconds"));
  }
  return static_cast<int64_t>(number.value);
}

Result<int64_t> parse_duration(std::string_view text) {
  return parse_duration(text,
                        "a non-negative number of seconds, optionally with suffix s, m, h or d");
}

Result<int64_t> parse_duration(std::string_view text, std::string_view allowed) {
  return parse_scaled(text, kDurationSuffixes, allowed);
}

Result<int64_t> parse_size(std::string_view text) {
  return parse_scaled(text, kSizeSuffixes,
                      "a non-negative number of bytes, optionally with suffix K, M, G or T "
                      "(powers of 1024)");
}

Result<bool> parse_bool(std::string_view text) {
  for (std::string_view yes : {"yes", "true", "1", "on"}) {
    if (text::iequals(text, yes)) {
      return true;
    }
  }
  for (std::string_view no : {"no", "false", "0", "off"}) {
    if (text::iequals(text, no)) {
      return false;
    }
  }
  return fail(text::quote(text) +
              " is not a boolean; allowed: yes, no, true, false, 1, 0, on, off");
}

std::string format_amount(Unit unit, int64_t value) {
  return std::string(unit_name(unit)) + "=" + std::to_string(value);
}

std::string format_limit(const Limit& limit, Unit unit) {
  switch (limit.kind) {
    case Limit::Kind::Unlimited:
      return "UNLIMITED";
    case Limit::Kind::PercentOfQuota:
      return std::to_string(limit.value) + "%";
    case Limit::Kind::Amount:
      break;
  }
  return format_amount(unit, limit.value);
}

std::string format_duration(int64_t seconds) { return format_scaled(seconds, kDurationSuffixes); }

std::string format_size(int64_t bytes) { return format_scaled(bytes, kSizeSuffixes); }

Result<int64_t> parse_weight(std::string_view text) {
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  const bool digits = !whole.empty() &&
                      whole.find_first_not_of("0123456789") == std::string_view::npos &&
                      fraction.find_first_not_of("0123456789") == std::string_view::npos &&
                      (dot == std::string_view::npos || !fraction.empty());
  if (!digits) {
    return fail(text::quote(text) +
                " is not a plain decimal number; allowed: " + std::string(kWeightAllowed));
  }
  if (fraction.size() > 3) {
    return fail(text::quote(text) +
                " has more than 3 decimals; allowed: " + std::string(kWeightAllowed));
  }
  const text::Number number = text::parse_decimal(whole, kMaxWeight / kWeightScale + 1);
  if (number.status != text::NumberStatus::Ok) {
    return fail(text::quote(text) + " is out of range; allowed: " + std::string(kWeightAllowed));
  }
  int64_t thousandths = static_cast<int64_t>(number.value) * kWeightScale;
  int64_t place = kWeightScale / 10;
  for (const char c : fraction) {
    thousandths += (c - '0') * place;
    place /= 10;
  }
  if (thousandths < kMinWeight || thousandths > kMaxWeight) {
    return fail(text::quote(text) + " is out of range; allowed: " + std::string(kWeightAllowed));
  }
  return thousandths;
}

std::string format_weight(int64_t thousandths) {
  std::string out = std::to_string(thousandths / kWeightScale);
  int64_t rest = thousandths % kWeightScale;
  if (rest == 0) return out;
  std::string decimals = std::to_string(kWeightScale + rest).substr(1);  // "250" for .25
  while (decimals.back() == '0') decimals.pop_back();
  return out + "." + decimals;
}

}  // namespace shareq::units
