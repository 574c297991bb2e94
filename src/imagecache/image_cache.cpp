#include "imagecache/image_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <random>
#include <vector>

#include "imagecache/fs_util.hpp"
#include "imagecache/sha256.hpp"

namespace shareq::imagecache {
namespace {

constexpr size_t kChunk = size_t{1} << 20;

Error image_error(const std::string& name, const std::string& cause) {
  return Error{"image", "image " + name + ": " + cause};
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<std::string> hash_file(const std::string& path) {
  fs::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return Error{"image", path + ": " + fs::errno_text(errno)};
  Sha256 hash;
  std::vector<char> buf(kChunk);
  while (true) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"image", path + ": " + fs::errno_text(errno)};
    if (n == 0) return hash.finish();
    hash.update(buf.data(), static_cast<size_t>(n));
  }
}

void touch(const std::string& path, Time now) {
  const struct timespec times[2] = {{now, 0}, {now, 0}};
  ::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

void sync_directory(const std::string& dir) {
  fs::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) ::fsync(fd.get());
}

// A new temporary file beside the cache entry, O_EXCL and 0600.
Result<std::pair<std::string, fs::UniqueFd>> create_temp(const std::string& dir,
                                                         const std::string& digest) {
  std::random_device random;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::string path =
        dir + "/.tmp-" + digest + "-" + std::to_string(::getpid()) + "-" + std::to_string(random());
    fs::UniqueFd fd(
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.valid()) return std::make_pair(path, std::move(fd));
    if (errno != EEXIST) {
      return Error{"image", "cannot create a file in " + dir + ": " + fs::errno_text(errno)};
    }
  }
  return Error{"image", "cannot find a free temporary name in " + dir};
}

// fsync, chmod 0444, close, rename into place, fsync the directory. A failed fsync or close
// (where a file system reports ENOSPC late) sets report.write_errno.
Result<bool> publish(fs::UniqueFd fd, const std::string& temp, const std::string& path,
                     FetchReport& report) {
  if (::fsync(fd.get()) != 0) {
    report.write_errno = errno;
    return Error{"image", "fsync: " + fs::errno_text(errno)};
  }
  if (::fchmod(fd.get(), 0444) != 0) return Error{"image", "chmod: " + fs::errno_text(errno)};
  if (const int err = fd.close(); err != 0) {
    report.write_errno = err;
    return Error{"image", "close: " + fs::errno_text(err)};
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    return Error{"image", "rename into place: " + fs::errno_text(errno)};
  }
  sync_directory(path.substr(0, path.rfind('/')));
  return true;
}

bool disk_full(int err) { return err == ENOSPC || err == EDQUOT; }

using Clock = std::chrono::steady_clock;

bool passed(Clock::time_point deadline) {
  return deadline != Clock::time_point::max() && Clock::now() >= deadline;
}

// What is left until `deadline`, rounded up (so that a limit that fires has passed it).
int64_t ms_left(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max<int64_t>(left.count(), 0);
}

// `limits` for a transfer that must end by `deadline`: its whole-transfer limit is what is left
// (whole seconds, rounded up; at least 1, since 0 would mean none), or its own when sooner.
TransferLimits limits_until(TransferLimits limits, Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return limits;
  const int64_t left_s = std::max<int64_t>((ms_left(deadline) + 999) / 1000, 1);
  if (limits.transfer_timeout_s <= 0 || limits.transfer_timeout_s > left_s) {
    limits.transfer_timeout_s = left_s;
  }
  return limits;
}

}  // namespace

CacheOptions CacheOptions::from_config(const Config& config) {
  CacheOptions options;
  options.store = config.image_store;
  options.cache_dir = config.image_cache_dir;
  options.capacity_bytes = config.image_cache_size_bytes;
  options.fetch_timeout_s = config.image_fetch_timeout_s;
  return options;
}

bool valid_holder(std::string_view holder) {
  if (holder.empty() || holder.size() > 64 || holder.front() == '.') return false;
  for (char c : holder) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<ImageCache> ImageCache::open(CacheOptions options) {
  Result<ImageStore> store = ImageStore::parse(options.store);
  if (!store) return store.error();
  while (options.cache_dir.size() > 1 && options.cache_dir.back() == '/') {
    options.cache_dir.pop_back();
  }
  if (options.cache_dir.empty() || options.cache_dir.front() != '/') {
    return Error{"ImageCacheDir", "\"" + options.cache_dir + "\" is not an absolute path"};
  }
  for (const char* sub : {"", "/sha256", "/locks", "/pins"}) {
    Result<bool> made = fs::ensure_private_dir(options.cache_dir + sub, 0755);
    if (!made) return Error{"ImageCacheDir", made.error().message};
  }
  return ImageCache(std::move(options), std::move(store).value());
}

std::string ImageCache::image_path(std::string_view digest) const {
  return options_.cache_dir + "/sha256/" + std::string(digest);
}

std::string ImageCache::lock_path(std::string_view digest) const {
  return options_.cache_dir + "/locks/" + std::string(digest) + ".lock";
}

std::string ImageCache::pin_dir(std::string_view digest) const {
  return options_.cache_dir + "/pins/" + std::string(digest);
}

Result<std::string> ImageCache::resolve(const ImageRef& ref) const {
  return resolve_with(ref, options_.transfer);
}

Result<std::string> ImageCache::resolve_with(const ImageRef& ref,
                                             const TransferLimits& limits) const {
  Result<std::string> published = store_.published_digest(ref.name, limits);
  if (!published) return published;
  if (ref.sha256 && *ref.sha256 != published.value()) {
    return image_error(ref.name, "pinned digest sha256:" + *ref.sha256 +
                                     " does not match the store's sha256:" + published.value());
  }
  return published;
}

Result<int64_t> ImageCache::fetch_verified(const std::string& name, const std::string& digest,
                                           FetchReport& report, Deadline deadline) const {
  // A transfer started now would have no limit left to get (0 means none).
  if (passed(deadline)) return image_error(name, "no time left to fetch it");
  const std::string path = image_path(digest);
  auto temp = create_temp(options_.cache_dir + "/sha256", digest);
  if (!temp) return image_error(name, temp.error().message);
  const std::string temp_path = temp.value().first;
  fs::UniqueFd fd = std::move(temp).value().second;
  auto fail = [&](const Error& error) -> Error {
    ::unlink(temp_path.c_str());
    return error;
  };
  // An image larger than the whole cache could never be kept: refused before it fills the disk.
  TransferLimits limits = limits_until(options_.transfer, deadline);
  limits.max_bytes = options_.capacity_bytes;
  if (const int64_t hint = store_.size_hint(name);
      limits.max_bytes > 0 && hint > limits.max_bytes) {
    return fail(image_error(
        name, std::to_string(hint) + " bytes, " + larger_than_the_cache(limits.max_bytes)));
  }
  Sha256 hash;
  Result<int64_t> size = store_.fetch(name, fd.get(), hash, limits, &report);
  if (!size) return fail(size.error());
  const std::string got = hash.finish();
  if (got != digest) {
    return fail(image_error(name, "digest mismatch: expected sha256:" + digest + ", got sha256:" +
                                      got + " (corrupt or changed in the store); not cached"));
  }
  Result<bool> published = publish(std::move(fd), temp_path, path, report);
  if (!published) return fail(image_error(name, published.error().message));
  return size;
}

Result<int64_t> ImageCache::fetch_with_room(const std::string& name, const std::string& digest,
                                            Deadline deadline) const {
  FetchReport report;
  Result<int64_t> size = fetch_verified(name, digest, report, deadline);
  if (size || !disk_full(report.write_errno)) return size;
  // The file system is fuller than ImageCacheSize allows for: room by evicting, if that helps.
  const bool known = report.announced > 0;
  const int64_t need = known ? report.announced : report.written + 1;
  const DiskRoom room = make_disk_room(need, digest);
  if (room.fits && room.evicted > 0) {
    report = FetchReport{};
    size = fetch_verified(name, digest, report, deadline);
    if (size || !disk_full(report.write_errno)) return size;
  }
  std::string why = size.error().message + "; ImageCacheDir " + options_.cache_dir +
                    " is on a full file system (";
  if (room.free_bytes >= 0) why += std::to_string(room.free_bytes) + " bytes free, ";
  why += (known ? "" : "more than ") + std::to_string(known ? need : need - 1) + " needed; ";
  if (room.free_bytes < 0) {
    why += "its free space is unknown, nothing evicted";
  } else if (room.evicted > 0) {
    why += "still full after evicting " + std::to_string(room.evicted) + " unpinned image(s)";
  } else if (!room.fits) {
    why += "evicting every unpinned image would not make room";
  } else {
    why += "no image to evict";
  }
  why += "; ImageCacheSize is " + std::to_string(options_.capacity_bytes) + " bytes); not cached";
  return Error{"image", why};
}

Result<CachedImage> ImageCache::ensure_cached(const ImageRef& ref, std::string_view holder,
                                              Time now) const {
  const int64_t limit_s = options_.fetch_timeout_s;
  const Deadline deadline =
      limit_s > 0 ? Clock::now() + std::chrono::seconds(limit_s) : Deadline::max();
  Result<CachedImage> image = ensure_cached_by(ref, holder, now, deadline);
  // Whichever step ran out of time said so in its own words (a transfer's limit is what was
  // left, not the whole): this names the limit an admin sets. fetch_verified removed the file.
  if (!image && passed(deadline)) {
    return Error{image.error().field, image.error().message + "; not cached within " +
                                          "ImageFetchTimeout (" + std::to_string(limit_s) + " s)"};
  }
  return image;
}

Result<CachedImage> ImageCache::ensure_cached_by(const ImageRef& ref, std::string_view holder,
                                                 Time now, Deadline deadline) const {
  if (!holder.empty() && !valid_holder(holder)) {
    return image_error(ref.name, "invalid pin holder \"" + std::string(holder) + "\"");
  }
  std::string digest;
  if (ref.sha256 && exists(image_path(*ref.sha256))) {
    digest = *ref.sha256;
  } else {
    Result<std::string> resolved = resolve_with(ref, limits_until(options_.transfer, deadline));
    if (!resolved) return resolved.error();
    digest = std::move(resolved).value();
  }
  return serve_cached(ref, digest, holder, now, deadline);
}

Result<CachedImage> ImageCache::serve_cached(const ImageRef& ref, const std::string& digest,
                                             std::string_view holder, Time now,
                                             Deadline deadline) const {
  CachedImage image{ref.name, digest, image_path(digest), 0, false};
  {
    // Another process's fetch of this image holds the lock for as long as its fetch takes, which
    // its own fetch_timeout_s bounds as ours does: worth waiting for while ours allows.
    const int64_t wait_ms =
        deadline == Deadline::max() ? options_.lock_timeout_ms : ms_left(deadline);
    Result<fs::FileLock> lock = fs::FileLock::acquire(lock_path(digest), wait_ms);
    if (!lock) return image_error(ref.name, lock.error().message);
    bool have = exists(image.path);
    if (have && options_.verify_cached) {
      Result<std::string> got = hash_file(image.path);
      have = got && got.value() == digest;
      if (!have) ::unlink(image.path.c_str());
    }
    if (!have) {
      (void)evict(store_.size_hint(ref.name), digest);  // best effort: room before fetching
      Result<int64_t> size = fetch_with_room(ref.name, digest, deadline);
      if (!size) return size.error();
      image.fetched = true;
    }
    touch(image.path, now);
    struct stat st {};
    if (::stat(image.path.c_str(), &st) == 0) image.size = st.st_size;
    if (!holder.empty()) {
      Result<bool> pinned = pin_locked(digest, holder);
      if (!pinned) return image_error(ref.name, pinned.error().message);
    }
  }
  if (image.fetched) (void)evict(0, digest);  // best effort: back under capacity
  return image;
}

}  // namespace shareq::imagecache
