#include "config_settings.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "text.hpp"
#include "units.hpp"

namespace shareq::settings {
namespace {

using Message = std::optional<std::string>;

template <typename T>
Message store(const Result<T>& parsed, T& field) {
  if (!parsed) {
    return parsed.error().message;
  }
  field = parsed.value();
  return std::nullopt;
}

// A whole number 0..max into `field`, or the message naming the allowed range.
Message store_bounded(std::string_view value, uint64_t max, int& field) {
  const text::Number number = text::parse_decimal(value, max);
  if (number.status != text::NumberStatus::Ok) {
    return text::number_message(value, number, "0.." + std::to_string(max));
  }
  field = static_cast<int>(number.value);
  return std::nullopt;
}

Message apply_default_priority(Config& config, std::string_view value) {
  return store_bounded(value, 99, config.default_priority);
}

// One of two words, any case, into `field`; `what` names the kind of value in the message.
template <typename Choice>
Message store_choice(std::string_view value, std::string_view what,
                     std::pair<std::string_view, Choice> first,
                     std::pair<std::string_view, Choice> second, Choice& field) {
  for (const auto& [word, choice] : {first, second}) {
    if (text::iequals(value, word)) {
      field = choice;
      return std::nullopt;
    }
  }
  return text::quote(value) + " is not a " + std::string(what) +
         "; allowed: " + std::string(first.first) + ", " + std::string(second.first);
}

Message apply_warm_pool_mode(Config& config, std::string_view value) {
  return store_choice(value, "mode", {"prefer", WarmPoolMode::Prefer},
                      {"reserve", WarmPoolMode::Reserve}, config.warm_pool_mode);
}

Message apply_unlisted_accounts(Config& config, std::string_view value) {
  return store_choice(value, "choice", {"borrow", UnlistedAccounts::Borrow},
                      {"refuse", UnlistedAccounts::Refuse}, config.unlisted_accounts);
}

Message apply_borrow_order(Config& config, std::string_view value) {
  return store_choice(value, "choice", {"fairshare", BorrowOrder::FairShare},
                      {"largest", BorrowOrder::Largest}, config.borrow_order);
}

constexpr std::array<std::pair<std::string_view, MatchField>, 5> kMatchFields = {{
    {"image", MatchField::Image},
    {"account", MatchField::Account},
    {"user", MatchField::User},
    {"partition", MatchField::Partition},
    {"nodes", MatchField::Nodes},
}};
constexpr std::string_view kMatchAllowed =
    "allowed: a comma-separated list of image, account, user, partition, nodes, each once";

Message apply_warm_pool_match(Config& config, std::string_view value) {
  std::vector<MatchField> fields;
  for (std::string_view piece : text::split(value, ',')) {
    const auto* found = std::find_if(kMatchFields.begin(), kMatchFields.end(),
                                     [&](const auto& f) { return text::iequals(f.first, piece); });
    if (found == kMatchFields.end()) {
      return (piece.empty() ? std::string("empty field") : text::quote(piece) + " is not a field") +
             "; " + std::string(kMatchAllowed);
    }
    if (std::find(fields.begin(), fields.end(), found->second) != fields.end()) {
      return std::string(found->first) + " is listed twice; " + std::string(kMatchAllowed);
    }
    fields.push_back(found->second);
  }
  config.warm_pool_match = std::move(fields);
  return std::nullopt;
}

std::string format_match(const Config& config) {
  std::vector<std::string> names;
  for (MatchField field : config.warm_pool_match) {
    for (const auto& [name, f] : kMatchFields) {
      if (f == field) {
        names.emplace_back(name);
      }
    }
  }
  return text::join(names, ",");
}

// Where Debian's prometheus-node-exporter reads textfiles (its --collector.textfile.directory).
constexpr std::string_view kRecommendedMetricsFile =
    "/var/lib/prometheus/node-exporter/shareq.prom";
constexpr std::string_view kMetricsAllowed =
    "an absolute file path ending in .prom (%n is the node name)";

bool has_whitespace(std::string_view value) {
  return value.find_first_of(" \t\r\n\v\f") != std::string_view::npos;
}

// The length of `value`'s "http://" or "https://" (in any case: URL schemes are
// case-insensitive, RFC 3986 3.1), or 0.
size_t http_scheme_length(std::string_view value) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (value.size() >= scheme.size() && text::iequals(value.substr(0, scheme.size()), scheme)) {
      return scheme.size();
    }
  }
  return 0;
}

Message apply_image_store(Config& config, std::string_view value) {
  const size_t scheme = http_scheme_length(value);
  const bool url = scheme > 0 && value.size() > scheme;
  if ((!value.starts_with('/') && !url) || has_whitespace(value)) {
    return text::quote(value) +
           " is not an image store; allowed: an absolute directory (/...) or an http:// or "
           "https:// URL";
  }
  // The scheme in its canonical lower case (RFC 3986 3.1); the rest as written.
  config.image_store = to_lower(value.substr(0, scheme)) + std::string(value.substr(scheme));
  return std::nullopt;
}

Message apply_image_cache_dir(Config& config, std::string_view value) {
  if (!value.starts_with('/') || has_whitespace(value)) {
    return text::quote(value) + " is not an absolute path; allowed: a directory starting with /";
  }
  config.image_cache_dir = std::string(value);
  return std::nullopt;
}

Message apply_max_fallback_requeues(Config& config, std::string_view value) {
  return store_bounded(value, 100, config.max_fallback_requeues);
}

Message apply_image_cache_metrics_file(Config& config, std::string_view value) {
  // The node exporter's textfile collector reads only *.prom files.
  if (!value.starts_with('/') || !value.ends_with(".prom") ||
      value.find("/.prom") != std::string_view::npos || has_whitespace(value)) {
    return text::quote(value) +
           " is not a textfile path; allowed: " + std::string(kMetricsAllowed) + ", e.g. " +
           std::string(kRecommendedMetricsFile);
  }
  config.image_cache_metrics_file = std::string(value);
  return std::nullopt;
}

// A job prolog's time for its image (Config::image_fetch_timeout_s). At least a second: 0 would
// read as "no limit", which is what the setting exists to rule out. At most a day: a prolog
// longer than that holds the job's nodes idle for no good reason.
constexpr int64_t kMaxImageFetchTimeout = 86400;
constexpr std::string_view kFetchTimeoutAllowed =
    "1 to 86400 seconds (1d), optionally with suffix s, m, h or d";

Message apply_image_fetch_timeout(Config& config, std::string_view value) {
  const Result<int64_t> seconds = units::parse_duration(value, kFetchTimeoutAllowed);
  if (!seconds) return seconds.error().message;
  if (seconds.value() < 1 || seconds.value() > kMaxImageFetchTimeout) {
    return text::number_message(value, {text::NumberStatus::TooLarge, 0}, kFetchTimeoutAllowed);
  }
  config.image_fetch_timeout_s = seconds.value();
  return std::nullopt;
}

constexpr std::array<GlobalSetting, 18> kSettings = {{
    {"DefaultPriority", "0..99", apply_default_priority,
     [](const Config& c) { return std::to_string(c.default_priority); }},
    {"InSharePreemption", "yes, no, true, false, 1, 0, on, off",
     [](Config& c, std::string_view v) {
       return store(units::parse_bool(v), c.in_share_preemption);
     },
     [](const Config& c) { return std::string(c.in_share_preemption ? "yes" : "no"); }},
    {"ReclaimMinRuntime", "a non-negative integer number of seconds",
     [](Config& c, std::string_view v) {
       return store(units::parse_seconds(v), c.reclaim_min_runtime_s);
     },
     [](const Config& c) { return std::to_string(c.reclaim_min_runtime_s); }},
    {"ReclaimAfter", "a non-negative integer number of seconds",
     [](Config& c, std::string_view v) {
       return store(units::parse_seconds(v), c.reclaim_after_s);
     },
     [](const Config& c) { return std::to_string(c.reclaim_after_s); }},
    {"BorrowOrder", "fairshare, largest", apply_borrow_order,
     [](const Config& c) {
       return std::string(c.borrow_order == BorrowOrder::Largest ? "largest" : "fairshare");
     }},
    {"PreemptGraceTime", "a non-negative integer number of seconds",
     [](Config& c, std::string_view v) {
       return store(units::parse_seconds(v), c.preempt_grace_time_s);
     },
     [](const Config& c) { return std::to_string(c.preempt_grace_time_s); }},
    {"MaxKeepAlive", "a non-negative number of seconds, optionally with suffix s, m, h or d",
     [](Config& c, std::string_view v) {
       return store(units::parse_duration(v), c.max_keep_alive_s);
     },
     [](const Config& c) { return units::format_duration(c.max_keep_alive_s); }},
    {"MaxWarmPoolLifetime", "a non-negative number of seconds, optionally with suffix s, m, h or d",
     [](Config& c, std::string_view v) {
       return store(units::parse_duration(v), c.max_warm_pool_lifetime_s);
     },
     [](const Config& c) { return units::format_duration(c.max_warm_pool_lifetime_s); }},
    {"WarmPoolMode", "prefer, reserve", apply_warm_pool_mode,
     [](const Config& c) {
       return std::string(c.warm_pool_mode == WarmPoolMode::Reserve ? "reserve" : "prefer");
     }},
    {"UnlistedAccounts", "borrow, refuse", apply_unlisted_accounts,
     [](const Config& c) {
       return std::string(c.unlisted_accounts == UnlistedAccounts::Refuse ? "refuse" : "borrow");
     }},
    {"FallbackDelay", "a non-negative number of seconds, optionally with suffix s, m, h or d",
     [](Config& c, std::string_view v) {
       return store(units::parse_duration(v), c.fallback_delay_s);
     },
     [](const Config& c) { return units::format_duration(c.fallback_delay_s); }},
    {"MaxFallbackRequeues", "0..100", apply_max_fallback_requeues,
     [](const Config& c) { return std::to_string(c.max_fallback_requeues); }},
    {"WarmPoolMatch", "a comma-separated list of image, account, user, partition, nodes, each once",
     apply_warm_pool_match, format_match},
    {"ImageStore", "an absolute directory (/...) or an http:// or https:// URL", apply_image_store,
     [](const Config& c) { return c.image_store; }},
    {"ImageCacheDir", "a directory starting with /", apply_image_cache_dir,
     [](const Config& c) { return c.image_cache_dir; }},
    {"ImageCacheSize",
     "a non-negative number of bytes, optionally with suffix K, M, G or T (powers of 1024)",
     [](Config& c, std::string_view v) {
       return store(units::parse_size(v), c.image_cache_size_bytes);
     },
     [](const Config& c) { return units::format_size(c.image_cache_size_bytes); }},
    {"ImageFetchTimeout", kFetchTimeoutAllowed, apply_image_fetch_timeout,
     [](const Config& c) { return units::format_duration(c.image_fetch_timeout_s); }},
    {"ImageCacheMetricsFile", kMetricsAllowed, apply_image_cache_metrics_file,
     [](const Config& c) { return c.image_cache_metrics_file; }},
}};

}  // namespace

std::span<const GlobalSetting> global_settings() { return kSettings; }

const GlobalSetting* find_global_setting(std::string_view key) {
  for (const GlobalSetting& setting : kSettings) {
    if (text::iequals(setting.name, key)) {
      return &setting;
    }
  }
  return nullptr;
}

}  // namespace shareq::settings
