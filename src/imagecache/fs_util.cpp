#include "imagecache/fs_util.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <variant>

#include "regular_file.hpp"

namespace shareq::imagecache::fs {
namespace {

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

}  // namespace

std::string errno_text(int err) {
  char buf[256];
  return std::string(strerror_r(err, buf, sizeof buf));
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() { close(); }

int UniqueFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

int UniqueFd::close() {
  if (fd_ < 0) return 0;
  const int rc = ::close(release());
  return rc == 0 ? 0 : errno;
}

namespace {

Result<UniqueFd> open_lock_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return Error{"image", "cannot open lock " + path + ": " + errno_text(errno)};
  return fd;
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::string& path, int64_t timeout_ms,
                                   std::string_view holder) {
  Result<UniqueFd> fd = open_lock_file(path);
  if (!fd) return fd.error();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto pause = std::chrono::milliseconds(1);
  while (::flock(fd.value().get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      return Error{"image", "cannot lock " + path + ": " + errno_text(errno)};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{"image", "timed out after " + std::to_string(timeout_ms) +
                                " ms waiting for lock " + path + " (" + std::string(holder) + ")"};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  FileLock lock;
  lock.fd_ = std::move(fd).value();
  return lock;
}

Result<FileLock> FileLock::try_acquire(const std::string& path) {
  Result<UniqueFd> fd = open_lock_file(path);
  if (!fd) return fd.error();
  FileLock lock;
  if (::flock(fd.value().get(), LOCK_EX | LOCK_NB) == 0) lock.fd_ = std::move(fd).value();
  return lock;
}

namespace {

Result<bool> make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error{"image", "cannot create directory " + path + ": " + errno_text(errno)};
  }
  return true;
}

}  // namespace

Result<std::vector<std::string>> list_dir(const std::string& dir) {
  std::unique_ptr<DIR, DirCloser> handle(::opendir(dir.c_str()));
  if (!handle) {
    if (errno == ENOENT) return std::vector<std::string>{};
    return Error{"image", "cannot list " + dir + ": " + errno_text(errno)};
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(handle.get())) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<bool> ensure_private_dir(const std::string& path, unsigned mode) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    Result<bool> made = make_dir(path.substr(0, slash));
    if (!made) return made;
  }
  Result<bool> made = make_dir(path);
  if (!made) return made;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return Error{"image", "cannot inspect " + path + ": " + errno_text(errno)};
  }
  if (!S_ISDIR(st.st_mode)) return Error{"image", path + " is not a directory"};
  if (st.st_uid != ::geteuid()) {
    return Error{"image", "cache directory " + path + " is owned by uid " +
                              std::to_string(st.st_uid) + ", not uid " +
                              std::to_string(::geteuid()) + "; refusing to use it"};
  }
  if ((st.st_mode & 07777) != mode && ::chmod(path.c_str(), mode) != 0) {
    return Error{"image", "cannot set the mode of " + path + ": " + errno_text(errno)};
  }
  return true;
}

int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

Result<std::string> read_small_file(const std::string& path, size_t max_bytes) {
  // A FIFO or a device would make the reader wait forever (slurmctld's image-store thread, which
  // job_submit's fini joins under slurmctld's locks) or read without end: refused unread.
  auto text = read_regular_file(path, max_bytes);
  if (auto* whole = std::get_if<std::string>(&text)) return std::move(*whole);
  const ReadFailure& failure = std::get<ReadFailure>(text);
  if (failure.too_large) {
    return Error{"image", path + " is larger than " + std::to_string(max_bytes) + " bytes"};
  }
  return Error{"image", path + ": " + failure.why};
}

}  // namespace shareq::imagecache::fs
