#include "warm/extra_format.hpp"

#include <cstdio>
#include <limits>

#include "text.hpp"

namespace shareq::warm {
namespace {

constexpr std::string_view kPoolPrefix = "wp-";

Error extra_error(std::string_view extra, std::string_view problem) {
  return Error{"Extra", text::quote(extra) +
                            " is not a shareq warm-pool line: " + std::string(problem) +
                            "; expected \"shareq:wp-N,STATUS,owner=USER/ACCOUNT,"
                            "until=EPOCH|job=ID,key=KEY\""};
}

// Takes "NAME=" then the value up to the next ',' (or the end) from the front of `rest`.
std::optional<std::string_view> take_field(std::string_view& rest, std::string_view name) {
  if (!rest.starts_with(name) || rest.size() <= name.size() || rest[name.size()] != '=') {
    return std::nullopt;
  }
  rest.remove_prefix(name.size() + 1);
  const size_t comma = rest.find(',');
  const std::string_view value = rest.substr(0, comma);
  rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  return value;
}

// `count` digits at `text[at]`, as a number; nullopt when one is not a digit.
std::optional<int> digits_at(std::string_view text, size_t at, size_t count) {
  int value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// "YYYY-MM-DDTHH:MM:SS", exactly, with each field in range.
std::optional<LocalDateTime> parse_local_date_time(std::string_view text) {
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const auto year = digits_at(text, 0, 4);
  const auto month = digits_at(text, 5, 2);
  const auto day = digits_at(text, 8, 2);
  const auto hour = digits_at(text, 11, 2);
  const auto minute = digits_at(text, 14, 2);
  const auto second = digits_at(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 60) {
    return std::nullopt;
  }
  return LocalDateTime{*year, *month, *day, *hour, *minute, *second};
}

}  // namespace

std::string format_local_date_time(const LocalDateTime& time) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", time.year, time.month, time.day,
                time.hour, time.minute, time.second);
  return buf;
}

bool is_shareq_extra(std::string_view extra) { return extra.starts_with(kExtraPrefix); }

NodeExtra node_extra_of(const WarmPool& pool) {
  NodeExtra extra;
  extra.pool = pool.name();
  extra.status = std::string(status_name(pool.status));
  extra.user = pool.user;
  extra.account = pool.account;
  if (pool.status == PoolStatus::InUse) {
    extra.job = pool.current_job();
  }
  if (!extra.job) extra.until = pool.expires_at;
  extra.key = pool.key.to_string();
  return extra;
}

std::string format_node_extra(const NodeExtra& extra) {
  std::string out = std::string(kExtraPrefix) + extra.pool + "," + extra.status +
                    ",owner=" + extra.user + "/" + extra.account;
  if (extra.job) {
    out += ",job=" + std::to_string(*extra.job);
  } else if (extra.until_local) {
    out += ",until=" + format_local_date_time(*extra.until_local);
  } else {
    out += ",until=" + std::to_string(extra.until.value_or(0));
  }
  return out + ",key=" + extra.key;
}

std::string node_extra(const WarmPool& pool) { return format_node_extra(node_extra_of(pool)); }

std::optional<PoolId> pool_number(std::string_view name) {
  if (!name.starts_with(kPoolPrefix)) return std::nullopt;
  const text::Number n =
      text::parse_decimal(name.substr(kPoolPrefix.size()), std::numeric_limits<PoolId>::max());
  if (n.status != text::NumberStatus::Ok) return std::nullopt;
  return static_cast<PoolId>(n.value);
}

std::optional<Result<NodeExtra>> parse_node_extra(std::string_view extra) {
  // An admin's request to end the node's pool is no pool (slurmctld ends it at its next pass).
  if (!is_shareq_extra(extra) || extra == kEndPoolRequest) return std::nullopt;
  using R = Result<NodeExtra>;
  std::string_view rest = extra.substr(kExtraPrefix.size());
  NodeExtra out;
  const size_t name_end = rest.find(',');
  out.pool = std::string(rest.substr(0, name_end));
  if (name_end == std::string_view::npos || !pool_number(out.pool)) {
    return R(extra_error(extra, "no pool name wp-N"));
  }
  rest.remove_prefix(name_end + 1);
  const size_t status_end = rest.find(',');
  out.status = std::string(rest.substr(0, status_end));
  if (out.status.empty() || status_end == std::string_view::npos) {
    return R(extra_error(extra, "no status"));
  }
  rest.remove_prefix(status_end + 1);
  const auto owner = take_field(rest, "owner");
  const size_t slash = owner ? owner->find('/') : std::string_view::npos;
  if (slash == std::string_view::npos) return R(extra_error(extra, "no owner=U/A"));
  out.user = std::string(owner->substr(0, slash));
  out.account = std::string(owner->substr(slash + 1));
  if (const auto until = take_field(rest, "until")) {
    const text::Number epoch =
        text::parse_decimal(*until, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
    if (epoch.status == text::NumberStatus::Ok) {
      out.until = static_cast<int64_t>(epoch.value);
    } else if (auto local = parse_local_date_time(*until)) {
      out.until_local = *local;  // written by an older slurmctld, in its local time
    } else {
      return R(extra_error(extra,
                           "bad until= (seconds since the epoch, or the older "
                           "YYYY-MM-DDTHH:MM:SS)"));
    }
  } else if (const auto job = take_field(rest, "job")) {
    const text::Number id = text::parse_decimal(*job, UINT32_MAX);
    if (id.status != text::NumberStatus::Ok) return R(extra_error(extra, "bad job="));
    out.job = static_cast<uint32_t>(id.value);
  } else {
    return R(extra_error(extra, "no until= or job="));
  }
  if (!rest.starts_with("key=")) return R(extra_error(extra, "no key="));
  out.key = std::string(rest.substr(4));  // the key is the rest, commas and all
  return R(std::move(out));
}

}  // namespace shareq::warm
