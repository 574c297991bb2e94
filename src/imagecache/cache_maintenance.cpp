// Pins, listing, LRU eviction and stale-temp cleanup of the image cache.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>

#include "imagecache/fs_util.hpp"
#include "imagecache/image_cache.hpp"
#include "warm/digest_file.hpp"

namespace shareq::imagecache {
namespace {

Result<bool> check_pin_args(std::string_view digest, std::string_view holder) {
  if (!warm::is_sha256_hex(digest, false)) {
    return Error{"image", "pin: \"" + std::string(digest) + "\" is not a sha256 digest"};
  }
  if (!valid_holder(holder)) {
    return Error{"image", "pin: invalid holder \"" + std::string(holder) + "\""};
  }
  return true;
}

}  // namespace

Result<bool> ImageCache::pin_locked(std::string_view digest, std::string_view holder) const {
  const std::string dir = pin_dir(digest);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error{"image", "cannot create " + dir + ": " + fs::errno_text(errno)};
  }
  const std::string path = dir + "/" + std::string(holder);
  fs::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (fd.valid()) return true;
  if (errno == EEXIST) return false;
  return Error{"image", "cannot create pin " + path + ": " + fs::errno_text(errno)};
}

Result<bool> ImageCache::pin(std::string_view digest, std::string_view holder) const {
  Result<bool> ok = check_pin_args(digest, holder);
  if (!ok) return ok;
  Result<fs::FileLock> lock = fs::FileLock::acquire(lock_path(digest), options_.lock_timeout_ms);
  if (!lock) return lock.error();
  return pin_locked(digest, holder);
}

Result<bool> ImageCache::unpin(std::string_view digest, std::string_view holder) const {
  Result<bool> ok = check_pin_args(digest, holder);
  if (!ok) return ok;
  Result<fs::FileLock> lock = fs::FileLock::acquire(lock_path(digest), options_.lock_timeout_ms);
  if (!lock) return lock.error();
  const std::string dir = pin_dir(digest);
  const std::string path = dir + "/" + std::string(holder);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return false;
    return Error{"image", "cannot remove pin " + path + ": " + fs::errno_text(errno)};
  }
  ::rmdir(dir.c_str());  // fails harmlessly while other holders remain
  return true;
}

Result<std::vector<std::string>> ImageCache::holders(std::string_view digest) const {
  if (!warm::is_sha256_hex(digest, false)) {
    return Error{"image", "\"" + std::string(digest) + "\" is not a sha256 digest"};
  }
  return fs::list_dir(pin_dir(digest));
}

Result<std::vector<Pin>> ImageCache::pins() const {
  Result<std::vector<std::string>> digests = fs::list_dir(options_.cache_dir + "/pins");
  if (!digests) return digests.error();
  std::vector<Pin> pins;
  for (const std::string& digest : digests.value()) {
    if (!warm::is_sha256_hex(digest, false)) continue;
    Result<std::vector<std::string>> held_by = holders(digest);
    if (!held_by) continue;
    for (std::string& holder : std::move(held_by).value()) {
      pins.push_back({digest, std::move(holder)});
    }
  }
  return pins;
}

Result<std::vector<warm::CacheEntry>> ImageCache::entries() const {
  Result<std::vector<std::string>> names = fs::list_dir(options_.cache_dir + "/sha256");
  if (!names) return names.error();
  std::vector<warm::CacheEntry> entries;
  for (const std::string& name : names.value()) {
    struct stat st {};
    if (!warm::is_sha256_hex(name, false) || ::lstat(image_path(name).c_str(), &st) != 0 ||
        !S_ISREG(st.st_mode)) {
      continue;
    }
    Result<std::vector<std::string>> pins = holders(name);
    const bool pinned = !pins || !pins.value().empty();  // unreadable pins: keep the image
    entries.push_back({name, static_cast<int64_t>(st.st_size), st.st_mtime, pinned});
  }
  return entries;
}

Result<fs::FileLock> ImageCache::eviction_pass() const {
  return fs::FileLock::acquire(options_.cache_dir + "/locks/evict.lock", options_.lock_timeout_ms);
}

Result<std::vector<warm::CacheEntry>> ImageCache::entries_keeping(std::string_view keep) const {
  Result<std::vector<warm::CacheEntry>> list = entries();
  if (!list) return list.error();
  std::vector<warm::CacheEntry> all = std::move(list).value();
  for (warm::CacheEntry& entry : all) entry.pinned = entry.pinned || entry.digest == keep;
  return all;
}

Result<std::vector<std::string>> ImageCache::evict(int64_t incoming, std::string_view keep) const {
  Result<fs::FileLock> pass = eviction_pass();
  if (!pass) return pass.error();
  Result<std::vector<warm::CacheEntry>> all = entries_keeping(keep);
  if (!all) return all.error();
  return apply_eviction(warm::plan_eviction(all.value(), options_.capacity_bytes, incoming).evict);
}

std::vector<std::string> ImageCache::apply_eviction(const std::vector<std::string>& plan) const {
  std::vector<std::string> evicted;
  for (const std::string& digest : plan) {
    Result<fs::FileLock> lock = fs::FileLock::try_acquire(lock_path(digest));
    if (!lock || !lock.value().held()) continue;  // in use right now: leave it
    Result<std::vector<std::string>> pins = holders(digest);
    if (!pins || !pins.value().empty()) continue;  // pinned since the listing
    if (::unlink(image_path(digest).c_str()) == 0 || errno == ENOENT) evicted.push_back(digest);
  }
  return evicted;
}

ImageCache::DiskRoom ImageCache::make_disk_room(int64_t need, std::string_view keep) const {
  DiskRoom room;
  Result<fs::FileLock> pass = eviction_pass();
  struct statvfs vfs {};
  if (!pass || ::statvfs((options_.cache_dir + "/sha256").c_str(), &vfs) != 0) return room;
  room.free_bytes =
      static_cast<int64_t>(std::min<uint64_t>(uint64_t{vfs.f_bavail} * vfs.f_frsize, INT64_MAX));
  Result<std::vector<warm::CacheEntry>> list = entries_keeping(keep);
  if (!list) return room;
  const std::vector<warm::CacheEntry>& all = list.value();
  int64_t cached = 0;
  for (const warm::CacheEntry& entry : all) {
    cached = entry.size > INT64_MAX - cached ? INT64_MAX : cached + entry.size;
  }
  // Room for `need` once the plan's images are gone: what they leave plus what is free.
  const int64_t usable =
      room.free_bytes > INT64_MAX - cached ? INT64_MAX : cached + room.free_bytes;
  const warm::EvictionPlan plan = warm::plan_eviction(all, usable, need);
  if (!plan.fits) return room;  // evicting would not make room: keep the images
  room.fits = true;
  room.evicted = static_cast<int>(apply_eviction(plan.evict).size());
  return room;
}

Result<int> ImageCache::remove_stale_temps(Time now, int64_t max_age_s) const {
  const std::string dir = options_.cache_dir + "/sha256";
  Result<std::vector<std::string>> names = fs::list_dir(dir);
  if (!names) return names.error();
  int removed = 0;
  for (const std::string& name : names.value()) {
    struct stat st {};
    const std::string path = dir + "/" + name;
    if (name.rfind(".tmp-", 0) != 0 || ::lstat(path.c_str(), &st) != 0) continue;
    if (st.st_mtime > now - max_age_s) continue;
    const std::string digest = name.substr(5, 64);
    if (warm::is_sha256_hex(digest, false)) {
      Result<fs::FileLock> lock = fs::FileLock::try_acquire(lock_path(digest));
      if (!lock || !lock.value().held()) continue;  // a fetch is running
      if (::unlink(path.c_str()) == 0) ++removed;
    } else if (::unlink(path.c_str()) == 0) {
      ++removed;
    }
  }
  return removed;
}

}  // namespace shareq::imagecache
