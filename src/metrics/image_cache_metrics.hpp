// The node image cache's Prometheus metrics, pure: the durable counters (kept in a small state
// file in the cache directory, so that they survive the short-lived slurmstepd processes that
// count them), what one job's image request adds to them, and the text that
// prometheus-node-exporter's textfile collector reads. The file I/O is in
// src/imagecache/cache_metrics.hpp.
//
// Metrics (all prefixed shareq_image_cache_):
//   bytes, limit_bytes, images, pinned_images         gauges, the cache as it is now
//   fetches_total{result="success|failure"}          counter: image requests that had to fetch
//                                                    (success) or could not be served (failure)
//   hits_total                                       counter: requests served from the cache
//   fetch_seconds                                    histogram: seconds of successful fetches
//   fetched_bytes_total                              counter: bytes of successful fetches
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "result.hpp"

namespace shareq::metrics {

// Upper bounds (seconds) of shareq_image_cache_fetch_seconds' buckets; +Inf is implied.
inline constexpr std::array<double, 11> kFetchSecondsBounds = {0.5, 1,   2.5, 5,   10,  30,
                                                               60,  120, 300, 600, 1800};

// Totals since the cache directory was made (or since its state file was lost: a reset that
// Prometheus's rate() handles).
struct ImageCacheCounters {
  uint64_t fetch_successes = 0;
  uint64_t fetch_failures = 0;
  uint64_t hits = 0;
  uint64_t fetched_bytes = 0;
  // Cumulative, as Prometheus writes them: fetch_seconds_buckets[i] counts fetches that took
  // at most kFetchSecondsBounds[i]; fetch_successes is the +Inf bucket and the count.
  std::array<uint64_t, kFetchSecondsBounds.size()> fetch_seconds_buckets{};
  uint64_t fetch_milliseconds_sum = 0;  // the histogram's _sum, kept exact in milliseconds

  bool operator==(const ImageCacheCounters&) const = default;
};

// The cache as it is now.
struct ImageCacheGauges {
  int64_t bytes = 0;        // sum of the cached images' sizes
  int64_t limit_bytes = 0;  // ImageCacheSize
  int64_t images = 0;
  int64_t pinned_images = 0;
};

// What one image request of a job ended in.
struct ImageRequest {
  enum class Outcome { Hit, Fetched, Failed };
  Outcome outcome = Outcome::Hit;
  double seconds = 0;  // Fetched: how long the fetch took
  int64_t bytes = 0;   // Fetched: the image's size
};

// Adds `request` to `counters` (saturating; a negative time or size counts as 0).
void record(ImageCacheCounters& counters, const ImageRequest& request);

// The state file's text: one "KEY VALUE" line per counter, in a fixed order, starting with
// "# shareq image cache metrics v1".
std::string format_counters(const ImageCacheCounters& counters);
// Parses format_counters' text. Errors (field "image cache metrics state"): a missing or other
// first line, an unknown or repeated key, a value that is not a non-negative number, a missing
// key, bucket counts that decrease or exceed the successes.
Result<ImageCacheCounters> parse_counters(std::string_view text);

// The Prometheus text exposition (format 0.0.4) of the counters and gauges, with HELP and TYPE
// lines, ending in a newline.
std::string render_image_cache_metrics(const ImageCacheCounters& counters,
                                       const ImageCacheGauges& gauges);

}  // namespace shareq::metrics
