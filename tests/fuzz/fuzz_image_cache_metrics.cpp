// parse_counters (the image cache's metrics state file) never crashes; what it accepts has
// cumulative buckets no larger than the successes, formats to text that parses back to the same
// counters, and renders a textfile ending in a newline.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "metrics/image_cache_metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shareq::metrics;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = parse_counters(text);
  if (!parsed) {
    if (parsed.error().field != "image cache metrics state" || parsed.error().message.empty()) {
      std::abort();
    }
    return 0;
  }
  const ImageCacheCounters& counters = parsed.value();
  uint64_t previous = 0;
  for (uint64_t bucket : counters.fetch_seconds_buckets) {
    if (bucket < previous) std::abort();
    previous = bucket;
  }
  if (previous > counters.fetch_successes) std::abort();
  const auto again = parse_counters(format_counters(counters));
  if (!again || !(again.value() == counters)) std::abort();
  ImageCacheCounters more = counters;
  record(more, {ImageRequest::Outcome::Fetched, 3.5, 7});
  if (!parse_counters(format_counters(more))) std::abort();
  const std::string rendered = render_image_cache_metrics(counters, {});
  if (rendered.empty() || rendered.back() != '\n') std::abort();
  return 0;
}
