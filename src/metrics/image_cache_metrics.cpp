#include "metrics/image_cache_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "text.hpp"

namespace shareq::metrics {
namespace {

constexpr std::string_view kStateHeader = "# shareq image cache metrics v1";
constexpr std::string_view kStateField = "image cache metrics state";

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

// The state file's keys, in the order format_counters writes them, each with its field.
struct CounterKey {
  std::string name;
  uint64_t ImageCacheCounters::*scalar = nullptr;  // nullptr: bucket `bucket`
  size_t bucket = 0;
};

std::vector<CounterKey> counter_keys() {
  std::vector<CounterKey> keys = {
      {"fetch_successes", &ImageCacheCounters::fetch_successes},
      {"fetch_failures", &ImageCacheCounters::fetch_failures},
      {"hits", &ImageCacheCounters::hits},
      {"fetched_bytes", &ImageCacheCounters::fetched_bytes},
      {"fetch_milliseconds_sum", &ImageCacheCounters::fetch_milliseconds_sum},
  };
  for (size_t i = 0; i < kFetchSecondsBounds.size(); ++i) {
    keys.push_back({"fetch_seconds_bucket_" + std::to_string(i), nullptr, i});
  }
  return keys;
}

uint64_t& field_of(ImageCacheCounters& counters, const CounterKey& key) {
  return key.scalar != nullptr ? counters.*key.scalar : counters.fetch_seconds_buckets[key.bucket];
}

// A bucket bound as Prometheus writes it: "0.5", "1", "2.5", "1800".
std::string format_bound(double bound) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", bound);
  return buf;
}

std::string format_milliseconds(uint64_t ms) {
  return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
}

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  const std::string full = "shareq_image_cache_" + std::string(name);
  out += "# HELP " + full + " " + std::string(help) + "\n";
  out += "# TYPE " + full + " " + std::string(type) + "\n";
}

void sample(std::string& out, std::string_view name, std::string_view labels,
            const std::string& value) {
  out += "shareq_image_cache_" + std::string(name);
  if (!labels.empty()) out += "{" + std::string(labels) + "}";
  out += " " + value + "\n";
}

std::optional<std::string> check_buckets(const ImageCacheCounters& c) {
  uint64_t previous = 0;
  for (uint64_t bucket : c.fetch_seconds_buckets) {
    if (bucket < previous) return "fetch_seconds buckets decrease";
    previous = bucket;
  }
  if (previous > c.fetch_successes) return "fetch_seconds buckets exceed fetch_successes";
  return std::nullopt;
}

}  // namespace

void record(ImageCacheCounters& counters, const ImageRequest& request) {
  switch (request.outcome) {
    case ImageRequest::Outcome::Hit:
      counters.hits = saturating_add(counters.hits, 1);
      return;
    case ImageRequest::Outcome::Failed:
      counters.fetch_failures = saturating_add(counters.fetch_failures, 1);
      return;
    case ImageRequest::Outcome::Fetched:
      break;
  }
  const double seconds =
      std::isfinite(request.seconds) && request.seconds > 0 ? request.seconds : 0;
  counters.fetch_successes = saturating_add(counters.fetch_successes, 1);
  counters.fetched_bytes = saturating_add(
      counters.fetched_bytes, static_cast<uint64_t>(std::max<int64_t>(request.bytes, 0)));
  const double ms = std::round(seconds * 1000);
  counters.fetch_milliseconds_sum = saturating_add(
      counters.fetch_milliseconds_sum,
      ms >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(ms));
  for (size_t i = 0; i < kFetchSecondsBounds.size(); ++i) {
    if (seconds <= kFetchSecondsBounds[i]) {
      counters.fetch_seconds_buckets[i] = saturating_add(counters.fetch_seconds_buckets[i], 1);
    }
  }
}

std::string format_counters(const ImageCacheCounters& counters) {
  std::string out = std::string(kStateHeader) + "\n";
  ImageCacheCounters copy = counters;
  for (const CounterKey& key : counter_keys()) {
    out += key.name + " " + std::to_string(field_of(copy, key)) + "\n";
  }
  return out;
}

Result<ImageCacheCounters> parse_counters(std::string_view text) {
  auto fail = [](const std::string& message) { return Error{std::string(kStateField), message}; };
  std::vector<std::string_view> lines = text::split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty() || lines.front() != kStateHeader) {
    return fail("the first line is not \"" + std::string(kStateHeader) + "\"");
  }
  const std::vector<CounterKey> keys = counter_keys();
  std::vector<bool> seen(keys.size(), false);
  ImageCacheCounters counters;
  for (size_t n = 1; n < lines.size(); ++n) {
    const std::string_view line = lines[n];
    const size_t space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    size_t index = 0;
    while (index < keys.size() && keys[index].name != name) ++index;
    if (index == keys.size()) {
      return fail("line " + std::to_string(n + 1) + ": unknown key " + text::quote(name));
    }
    if (seen[index]) {
      return fail("line " + std::to_string(n + 1) + ": " + keys[index].name + " is repeated");
    }
    seen[index] = true;
    const std::string_view value =
        space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    const text::Number number = text::parse_decimal(value, std::numeric_limits<uint64_t>::max());
    if (number.status != text::NumberStatus::Ok) {
      return fail("line " + std::to_string(n + 1) + ": " + keys[index].name + ": " +
                  text::number_message(value, number, "a non-negative integer"));
    }
    field_of(counters, keys[index]) = number.value;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!seen[i]) return fail(keys[i].name + " is missing");
  }
  if (auto bad = check_buckets(counters)) return fail(*bad);
  return counters;
}

std::string render_image_cache_metrics(const ImageCacheCounters& c, const ImageCacheGauges& g) {
  std::string out;
  family(out, "bytes", "gauge", "Bytes of the images in the node's image cache.");
  sample(out, "bytes", "", std::to_string(g.bytes));
  family(out, "limit_bytes", "gauge", "The most the node's image cache may hold (ImageCacheSize).");
  sample(out, "limit_bytes", "", std::to_string(g.limit_bytes));
  family(out, "images", "gauge", "Images in the node's image cache.");
  sample(out, "images", "", std::to_string(g.images));
  family(out, "pinned_images", "gauge",
         "Cached images pinned by a running job or a warm pool (never evicted).");
  sample(out, "pinned_images", "", std::to_string(g.pinned_images));
  family(out, "fetches_total", "counter",
         "Image requests that fetched the image (success) or could not be served (failure).");
  sample(out, "fetches_total", "result=\"success\"", std::to_string(c.fetch_successes));
  sample(out, "fetches_total", "result=\"failure\"", std::to_string(c.fetch_failures));
  family(out, "hits_total", "counter", "Image requests served from the cache without a fetch.");
  sample(out, "hits_total", "", std::to_string(c.hits));
  family(out, "fetched_bytes_total", "counter", "Bytes of images fetched successfully.");
  sample(out, "fetched_bytes_total", "", std::to_string(c.fetched_bytes));
  family(out, "fetch_seconds", "histogram", "Seconds a successful image fetch took.");
  for (size_t i = 0; i < kFetchSecondsBounds.size(); ++i) {
    sample(out, "fetch_seconds_bucket", "le=\"" + format_bound(kFetchSecondsBounds[i]) + "\"",
           std::to_string(c.fetch_seconds_buckets[i]));
  }
  sample(out, "fetch_seconds_bucket", "le=\"+Inf\"", std::to_string(c.fetch_successes));
  sample(out, "fetch_seconds_sum", "", format_milliseconds(c.fetch_milliseconds_sum));
  sample(out, "fetch_seconds_count", "", std::to_string(c.fetch_successes));
  return out;
}

}  // namespace shareq::metrics
