// The image cache's node metrics on disk: the durable counters in CACHE/metrics.state and the
// Prometheus textfile for prometheus-node-exporter (src/metrics/image_cache_metrics.hpp has the
// texts). Both are written under CACHE/locks/metrics.lock, so that the jobs of one node, each in
// its own short-lived slurmstepd, add to the same totals and never publish an older file over a
// newer one.
#pragma once

#include <optional>
#include <string>

#include "imagecache/image_cache.hpp"
#include "metrics/image_cache_metrics.hpp"
#include "result.hpp"

namespace shareq::imagecache {

// Adds `request` (when given) to the counters, then writes `prom_path` from the counters and the
// cache as it is now: a temporary file in the same directory (0644), fsync, rename. The
// directory of `prom_path` must exist (it is the node exporter's). Result: "" or a note worth a
// log line (an unreadable state file, set aside as metrics.state.bad: the counters restart from
// 0). Errors (field "ImageCacheMetricsFile"): the lock, the state file or the textfile cannot be
// written; the counters are then not updated.
Result<std::string> update_cache_metrics(const ImageCache& cache,
                                         const std::optional<metrics::ImageRequest>& request,
                                         const std::string& prom_path);

// CACHE/metrics.state.
std::string metrics_state_path(const ImageCache& cache);

}  // namespace shareq::imagecache
