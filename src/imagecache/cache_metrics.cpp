#include "imagecache/cache_metrics.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "imagecache/fs_util.hpp"

namespace shareq::imagecache {
namespace {

constexpr std::string_view kField = "ImageCacheMetricsFile";
constexpr int64_t kLockTimeoutMs = 10'000;
constexpr size_t kMaxStateBytes = size_t{64} * 1024;

Error metrics_error(const std::string& message) { return Error{std::string(kField), message}; }

// Writes `text` to `path` through PATH.tmp-PID in the same directory: fsync, rename.
Result<bool> write_file_atomically(const std::string& path, const std::string& text,
                                   unsigned mode) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  fs::UniqueFd fd(
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd.valid()) return metrics_error("cannot create " + temp + ": " + fs::errno_text(errno));
  auto fail = [&](const std::string& what, int err) {
    ::unlink(temp.c_str());
    return metrics_error(what + " " + temp + ": " + fs::errno_text(err));
  };
  if (const int err = fs::write_all(fd.get(), text.data(), text.size()); err != 0) {
    return fail("cannot write", err);
  }
  // The mode asked at creation is masked by the umask; the node exporter must read the file.
  if (::fchmod(fd.get(), mode) != 0) return fail("cannot chmod", errno);
  if (::fsync(fd.get()) != 0) return fail("cannot fsync", errno);
  if (const int err = fd.close(); err != 0) return fail("cannot close", err);
  if (::rename(temp.c_str(), path.c_str()) != 0) return fail("cannot rename", errno);
  return true;
}

struct LoadedCounters {
  metrics::ImageCacheCounters counters;
  std::string note;
};

// The counters in `path`: zero when it does not exist; zero with a note when it is unreadable.
LoadedCounters load_counters(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 && errno == ENOENT) return {};
  Result<std::string> text = fs::read_small_file(path, kMaxStateBytes);
  std::string problem;
  if (!text) {
    problem = text.error().message;
  } else if (auto parsed = metrics::parse_counters(text.value()); parsed) {
    return {parsed.value(), ""};
  } else {
    problem = parsed.error().to_string();
  }
  ::rename(path.c_str(), (path + ".bad").c_str());
  return {{},
          path + " is unreadable (" + problem + "); set aside as " + path +
              ".bad, the counters restart from 0"};
}

Result<metrics::ImageCacheGauges> current_gauges(const ImageCache& cache) {
  Result<std::vector<warm::CacheEntry>> entries = cache.entries();
  if (!entries) return entries.error();
  metrics::ImageCacheGauges gauges;
  gauges.limit_bytes = cache.options().capacity_bytes;
  for (const warm::CacheEntry& entry : entries.value()) {
    gauges.bytes += entry.size;
    gauges.images += 1;
    gauges.pinned_images += entry.pinned ? 1 : 0;
  }
  return gauges;
}

}  // namespace

std::string metrics_state_path(const ImageCache& cache) {
  return cache.options().cache_dir + "/metrics.state";
}

Result<std::string> update_cache_metrics(const ImageCache& cache,
                                         const std::optional<metrics::ImageRequest>& request,
                                         const std::string& prom_path) {
  Result<fs::FileLock> lock =
      fs::FileLock::acquire(cache.options().cache_dir + "/locks/metrics.lock", kLockTimeoutMs);
  if (!lock) return metrics_error(lock.error().message);
  const std::string state_path = metrics_state_path(cache);
  LoadedCounters loaded = load_counters(state_path);
  if (request) {
    metrics::record(loaded.counters, *request);
    Result<bool> saved =
        write_file_atomically(state_path, metrics::format_counters(loaded.counters), 0600);
    if (!saved) return saved.error();
  }
  Result<metrics::ImageCacheGauges> gauges = current_gauges(cache);
  if (!gauges) return metrics_error(gauges.error().message);
  Result<bool> written = write_file_atomically(
      prom_path, metrics::render_image_cache_metrics(loaded.counters, gauges.value()), 0644);
  if (!written) return written.error();
  return loaded.note;
}

}  // namespace shareq::imagecache
