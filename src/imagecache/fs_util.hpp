// File-system helpers of the image cache (internal header): owned descriptors, flock with a
// bounded wait, directories with an exact owner and mode, errno as text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace shareq::imagecache::fs {

// "No such file or directory" for errno `err`.
std::string errno_text(int err);

// Closes its descriptor on destruction; -1 when empty.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  int release();
  // Closes now; the errno of a failed close(), 0 on success.
  int close();

 private:
  int fd_ = -1;
};

// An exclusive flock on a lock file (created 0600 when missing, never deleted), released when
// this object goes away (or its process dies, which is what makes a crashed fetch harmless).
class FileLock {
 public:
  // Waits at most timeout_ms (polling, never a signal). Errors: cannot open the file, timeout
  // ("... waiting for lock PATH (HOLDER)", `holder` saying who would hold it).
  static Result<FileLock> acquire(const std::string& path, int64_t timeout_ms,
                                  std::string_view holder = "another fetch is running");
  // Takes it only if free now; an empty lock (held() false) when another holder has it.
  static Result<FileLock> try_acquire(const std::string& path);
  [[nodiscard]] bool held() const { return fd_.valid(); }

 private:
  UniqueFd fd_;
};

// Creates `path` and its missing parents (mode 0755), then makes sure `path` is a directory (not
// a link) owned by this process's user with exactly `mode`. Errors: a non-directory in the way,
// a directory owned by another user (a user could plant images in it), any system call failing.
Result<bool> ensure_private_dir(const std::string& path, unsigned mode);

// The names in `dir` (not "." or ".."), sorted; a missing directory is empty. Errors: any other
// failure to open it.
Result<std::vector<std::string>> list_dir(const std::string& dir);

// Writes all of `data`; the errno of the failure, 0 on success (EINTR retried).
int write_all(int fd, const char* data, size_t size);

// Reads a whole small file (at most max_bytes; larger is an error). What is not a regular file
// (a FIFO, a device) is an error, not read (open_regular_file).
Result<std::string> read_small_file(const std::string& path, size_t max_bytes);

}  // namespace shareq::imagecache::fs
