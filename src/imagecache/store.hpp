// Where images come from (internal header): a directory or an http(s):// URL holding NAME and
// NAME.sha256.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "result.hpp"

namespace shareq::imagecache {

class Sha256;

// Transfer limits for HTTP stores (transfer_timeout_s: for a directory store's copy too).
struct TransferLimits {
  int64_t connect_timeout_s = 10;
  int64_t stall_timeout_s = 60;  // abort when under 1 KiB/s for this long
  // The whole transfer; 0 = no limit. An HTTP store's is curl's; a directory store's copy looks
  // at the clock between chunks of 1 MiB, so a read blocked on a hung NFS mount is not cut
  // short (no process can interrupt it): the copy stops at the first chunk after the mount
  // answers again. Slurm's PrologEpilogTimeout is what bounds a prolog stuck there.
  int64_t transfer_timeout_s = 0;
  int64_t max_bytes = 0;  // an image's largest size (the cache's); 0 = no limit
  // The caller's to set, from any thread, to abort the transfer: once true, a transfer in
  // progress (connecting included) stops within about a second with an error that says it was
  // cancelled. nullptr: never cancelled. The flag must outlive the transfer.
  const std::atomic<bool>* cancel = nullptr;
};

// What a fetch saw of its write side and of the image's size, for the caller to tell a full
// file system (and how much room the image needs) from other failures.
struct FetchReport {
  int write_errno = 0;     // errno of a failed write into the cache's file (ENOSPC...); 0: none
  int64_t written = 0;     // bytes written into it
  int64_t announced = -1;  // the image's size as the store told it (Content-Length, file size)
};

// Why an image over TransferLimits::max_bytes is refused (a fetch's error names the image first).
std::string larger_than_the_cache(int64_t max_bytes);

class ImageStore {
 public:
  // "/srv/images" or "http(s)://host[:port]/path". Errors: empty, relative path, other scheme.
  static Result<ImageStore> parse(const std::string& location);

  [[nodiscard]] bool is_http() const { return http_; }
  // LOCATION/NAME (and LOCATION/NAME.sha256); `name` is already a valid image name.
  [[nodiscard]] std::string url_of(const std::string& name) const;

  // The published digest of `name` (NAME.sha256, parsed by parse_digest_file), lower-case.
  // Errors name the image: missing, unreadable, malformed, HTTP status, timeout.
  [[nodiscard]] Result<std::string> published_digest(const std::string& name,
                                                     const TransferLimits& limits) const;

  // The size of NAME when the store can tell before fetching (directory stores); -1 otherwise.
  [[nodiscard]] int64_t size_hint(const std::string& name) const;

  // Streams NAME into `fd`, feeding `hash` as it goes. Result: the bytes written. Errors name
  // the image and the cause (missing, short read, write error such as ENOSPC, HTTP status,
  // interrupted transfer, timeout); whatever was written then is the caller's to remove.
  // `report` (when given) is filled in either way.
  [[nodiscard]] Result<int64_t> fetch(const std::string& name, int fd, Sha256& hash,
                                      const TransferLimits& limits,
                                      FetchReport* report = nullptr) const;

 private:
  std::string location_;  // without a trailing '/'
  bool http_ = false;
};

}  // namespace shareq::imagecache
