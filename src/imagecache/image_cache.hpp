// The node-local, content-addressed image cache (library shareq_imagecache). It runs as root in
// slurmstepd / the prolog: it does I/O, but takes `now` as an argument and reads no Slurm header.
//
// Layout under ImageCacheDir (every directory root-owned, 0755; nothing writable by users):
//   sha256/<hex>               a cached image, read-only (0444); its mtime is its last use
//   sha256/.tmp-<hex>-<pid>-<n> a fetch in progress (0600), renamed into place once verified
//   locks/<hex>.lock           flock'ed by whoever fetches, pins, unpins or evicts <hex> (0600)
//   locks/evict.lock           one eviction pass at a time
//   pins/<hex>/<holder>        one empty file per holder (a job "job-42", a pool "wp-7"):
//                              an image with any pin is never evicted; survives restarts
//
// Lock protocol: everything that creates, pins, unpins or deletes sha256/<hex> holds
// locks/<hex>.lock. A second job wanting an image being fetched waits for the lock (bounded by
// lock_timeout_ms) and then finds the image. Eviction only try-locks, so it never waits behind a
// fetch, and skips images whose lock is busy. A crashed fetch releases its lock with its
// process; its temporary file is removed by remove_stale_temps.
//
// Thread- and process-safe: an ImageCache holds no mutable state; several threads and processes
// may use the same directory at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "imagecache/fs_util.hpp"
#include "imagecache/store.hpp"
#include "result.hpp"
#include "flags.hpp"
#include "warm/eviction.hpp"

namespace shareq::imagecache {

using Time = int64_t;  // seconds since the epoch

// Every knob, with its default.
struct CacheOptions {
  std::string store;                                   // ImageStore: directory or http(s):// URL
  std::string cache_dir = "/var/cache/shareq/images";  // ImageCacheDir, absolute
  int64_t capacity_bytes = int64_t{200} << 30;         // ImageCacheSize
  bool verify_cached = false;  // re-hash a cached image before handing it out
  // Wait for another process's fetch of the same image (ensure_cached: see fetch_timeout_s),
  // pin, unpin or eviction.
  int64_t lock_timeout_ms = 600'000;
  TransferLimits transfer;  // HTTP timeouts; transfer_timeout_s also bounds a directory's copy
  // ImageFetchTimeout: the most one ensure_cached may take, from asking the store for the digest
  // to the image in place, waiting for another process's fetch of it included (that wait is
  // then bounded by what is left of this, not by lock_timeout_ms); each transfer gets what is
  // left. Beyond it: an error, nothing new in the cache. 0 = no limit.
  int64_t fetch_timeout_s = 0;

  static CacheOptions from_config(const Config& config);
};

// One pin: `holder` keeps the image `digest` (pins/<digest>/<holder>).
struct Pin {
  std::string digest;
  std::string holder;
};

struct CachedImage {
  std::string name;    // as the job asked
  std::string digest;  // 64 lower-case hex
  std::string path;    // CACHE/sha256/<digest>
  int64_t size = 0;
  bool fetched = false;  // this call fetched it (false: it was in the cache already)
};

class ImageCache {
 public:
  // Creates the layout above (missing directories 0755) and checks it. Errors: bad store,
  // relative cache_dir, a cache directory owned by another user, a system call failing.
  static Result<ImageCache> open(CacheOptions options);

  [[nodiscard]] const CacheOptions& options() const { return options_; }
  // CACHE/sha256/<digest>. Precondition: digest is 64 lower-case hex.
  [[nodiscard]] std::string image_path(std::string_view digest) const;

  // The store's published digest of `ref`. Errors (messages name the image): unreadable or
  // malformed NAME.sha256, and a pinned digest (name@sha256:...) other than the published one.
  [[nodiscard]] Result<std::string> resolve(const ImageRef& ref) const;

  // Makes sure `ref` is cached and returns it; `holder` (when not empty) pins it before the
  // lock is released, so it cannot be evicted before the caller uses it. A pinned ref already
  // in the cache is served without asking the store; otherwise the store's digest decides.
  // Fetching: temp file, SHA-256 while streaming, verify, fsync, chmod 0444, rename; then LRU
  // eviction to keep the cache under capacity (never the image just fetched). Records `now` as
  // its last use. A file system fuller than ImageCacheSize allows for (other files on it, or a
  // size larger than the disk) fails the write with ENOSPC: then unpinned images are evicted,
  // least recently used first, when that makes room for the image (its announced size, else
  // more than was written), and the fetch is tried once more; never when it would not. Errors
  // (field "image", the message names the image and the cause): store errors, digest
  // mismatch, short read, write failure (a full file system names ImageCacheDir, the bytes free
  // and needed), HTTP status, interrupted transfer, timeouts, lock timeout; past fetch_timeout_s,
  // the cause and "; not cached within ImageFetchTimeout (N s)". On error nothing new is left in
  // the cache.
  Result<CachedImage> ensure_cached(const ImageRef& ref, std::string_view holder, Time now) const;

  // Pins `digest` for `holder` ([A-Za-z0-9_.-], 1..64, not starting with '.'); the image need
  // not be cached yet. Result: true when the pin is new. unpin: true when a pin was removed.
  Result<bool> pin(std::string_view digest, std::string_view holder) const;
  Result<bool> unpin(std::string_view digest, std::string_view holder) const;
  // The holders pinning `digest`, sorted.
  [[nodiscard]] Result<std::vector<std::string>> holders(std::string_view digest) const;
  // Every pin, by digest and then holder. A digest whose pins go while it is listed is left out.
  // Errors: pins/ cannot be listed.
  [[nodiscard]] Result<std::vector<Pin>> pins() const;

  // The cached images: digest, size, last use (mtime), pinned.
  [[nodiscard]] Result<std::vector<warm::CacheEntry>> entries() const;
  // Applies warm::plan_eviction for capacity minus `incoming` bytes; `keep` (a digest, or "")
  // is treated as pinned. Skips images another process holds locked. Result: digests removed.
  Result<std::vector<std::string>> evict(int64_t incoming = 0, std::string_view keep = "") const;
  // Removes temporary files of crashed fetches: older than max_age_s at `now` and not locked.
  // Result: how many were removed.
  Result<int> remove_stale_temps(Time now, int64_t max_age_s) const;

 private:
  // When an ensure_cached must be done (fetch_timeout_s); Deadline::max(): never.
  using Deadline = std::chrono::steady_clock::time_point;

  explicit ImageCache(CacheOptions options, ImageStore store)
      : options_(std::move(options)), store_(std::move(store)) {}
  [[nodiscard]] std::string lock_path(std::string_view digest) const;
  [[nodiscard]] std::string pin_dir(std::string_view digest) const;
  Result<std::string> resolve_with(const ImageRef& ref, const TransferLimits& limits) const;
  Result<CachedImage> ensure_cached_by(const ImageRef& ref, std::string_view holder, Time now,
                                       Deadline deadline) const;
  Result<CachedImage> serve_cached(const ImageRef& ref, const std::string& digest,
                                   std::string_view holder, Time now, Deadline deadline) const;
  Result<int64_t> fetch_verified(const std::string& name, const std::string& digest,
                                 FetchReport& report, Deadline deadline) const;
  Result<int64_t> fetch_with_room(const std::string& name, const std::string& digest,
                                  Deadline deadline) const;
  // Room on the cache's file system for `need` bytes: evicts unpinned images (not `keep`) only
  // when that makes room. fits: there is room now (or would be, but for images in use).
  struct DiskRoom {
    int64_t free_bytes = -1;  // before evicting; -1: unknown
    int evicted = 0;
    bool fits = false;
  };
  DiskRoom make_disk_room(int64_t need, std::string_view keep) const;
  std::vector<std::string> apply_eviction(const std::vector<std::string>& plan) const;
  // The lock every eviction holds, and the cached images with `keep` counted as pinned.
  Result<fs::FileLock> eviction_pass() const;
  Result<std::vector<warm::CacheEntry>> entries_keeping(std::string_view keep) const;
  Result<bool> pin_locked(std::string_view digest, std::string_view holder) const;

  CacheOptions options_;
  ImageStore store_;
};

// Whether `holder` is a valid pin holder name (see pin).
bool valid_holder(std::string_view holder);

}  // namespace shareq::imagecache
