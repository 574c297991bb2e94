#include "sim/time_text.hpp"

#include "text.hpp"

namespace shareq::sim {
namespace {

std::optional<int64_t> number(std::string_view digits, size_t width, uint64_t max) {
  if (digits.size() != width && width != 0) return std::nullopt;
  const auto parsed = text::parse_decimal(digits, max);
  if (parsed.status != text::NumberStatus::Ok) return std::nullopt;
  return static_cast<int64_t>(parsed.value);
}

// Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = y / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "D-rest" -> D (at most max_days) and rest; text without a dash -> 0 days and all of it.
struct DaysSplit {
  bool with_days = false;
  int64_t days = 0;
  std::string_view rest;
};

std::optional<DaysSplit> split_days(std::string_view text, uint64_t max_days) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) return DaysSplit{false, 0, text};
  const auto days = number(text.substr(0, dash), 0, max_days);
  if (!days) return std::nullopt;
  return DaysSplit{true, *days, text.substr(dash + 1)};
}

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t days_in_month(int64_t y, int64_t m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

}  // namespace

std::optional<int64_t> parse_timestamp(std::string_view t) {
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' ||
      t[16] != ':') {
    return std::nullopt;
  }
  const auto y = number(t.substr(0, 4), 4, 9999), mo = number(t.substr(5, 2), 2, 12),
             d = number(t.substr(8, 2), 2, 31), h = number(t.substr(11, 2), 2, 23),
             mi = number(t.substr(14, 2), 2, 59), s = number(t.substr(17, 2), 2, 60);
  if (!y || !mo || !d || !h || !mi || !s || *y < 1970 || *mo < 1 || *d < 1) return std::nullopt;
  if (*d > days_in_month(*y, *mo)) return std::nullopt;
  return days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *s;
}

std::optional<int64_t> parse_elapsed(std::string_view text) {
  const auto split = split_days(text, 1'000'000);
  if (!split) return std::nullopt;
  const auto parts = text::split(split->rest.substr(0, split->rest.find('.')), ':');
  if (parts.size() < 2 || parts.size() > 3 || (split->with_days && parts.size() != 3)) {
    return std::nullopt;
  }
  int64_t seconds = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto value = number(parts[i], 0, i == 0 ? 1'000'000'000 : 59);
    if (!value) return std::nullopt;
    seconds = seconds * 60 + *value;
  }
  return split->days * 86400 + seconds;
}

std::optional<int64_t> parse_slurm_minutes(std::string_view text) {
  constexpr uint64_t kMaxDays = 100'000;
  const auto split = split_days(text, kMaxDays);
  if (!split) return std::nullopt;
  const auto parts = text::split(split->rest, ':');
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  // Without days: M, M:S, H:M:S. With days: D-H, D-H:M, D-H:M:S.
  const bool with_days = split->with_days;
  const uint64_t first_max = with_days ? 23 : kMaxDays * 24 * 60;
  int64_t values[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto value = number(parts[i], 0, i == 0 ? first_max : 59);
    if (!value) return std::nullopt;
    values[i] = *value;
  }
  // Hours, minutes and seconds: D-H[:M[:S]] and H:M:S name hours first; M and M:S minutes.
  const bool hours_first = with_days || parts.size() == 3;
  int64_t seconds =
      hours_first ? values[0] * 3600 + values[1] * 60 + values[2] : values[0] * 60 + values[1];
  seconds += split->days * 86400;
  return (seconds + 59) / 60 * 60;
}

}  // namespace shareq::sim
