#include "regular_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <utility>

namespace shareq {
namespace {

std::string cannot_read(int error_number) {
  return "cannot read: " + std::generic_category().message(error_number);
}

// "is a FIFO, not a regular file", "is a directory, not ...": what the file is instead.
std::string not_regular(mode_t mode) {
  const char* kind = S_ISFIFO(mode)   ? "a FIFO"
                     : S_ISDIR(mode)  ? "a directory"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : nullptr;
  return kind == nullptr ? "is not a regular file"
                         : "is " + std::string(kind) + ", not a regular file";
}

// Whether a descriptor of this process other than `self` is open on the same file as `st`.
bool held_elsewhere(int self, const struct stat& st) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return false;
  bool held = false;
  while (const dirent* entry = ::readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == self || fd == ::dirfd(fds)) continue;
    struct stat other {};
    if (::fstat(static_cast<int>(fd), &other) == 0 && other.st_dev == st.st_dev &&
        other.st_ino == st.st_ino) {
      held = true;
      break;
    }
  }
  ::closedir(fds);
  return held;
}

}  // namespace

std::variant<int, std::string> open_regular_file(const std::string& path, HeldPipes pipes) {
  // Without O_NONBLOCK, opening a FIFO waits for a writer; a regular file reads the same.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cannot_read(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error_number = errno;
    ::close(fd);
    return cannot_read(error_number);
  }
  const bool held_pipe = pipes == HeldPipes::Read && S_ISFIFO(st.st_mode) && held_elsewhere(fd, st);
  if (!S_ISREG(st.st_mode) && !held_pipe) {
    ::close(fd);
    return not_regular(st.st_mode) + "; allowed: a regular file (or a symbolic link to one)" +
           (pipes == HeldPipes::Read ? ", or a pipe this command was given open (/dev/stdin)" : "");
  }
  // Reads wait for data from here on (a held pipe's writer may not have written yet).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int error_number = errno;
    ::close(fd);
    return cannot_read(error_number);
  }
  return fd;
}

std::variant<std::string, ReadFailure> read_to_end_and_close(int fd, size_t max_bytes) {
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error_number = errno;
      ::close(fd);
      return ReadFailure{std::generic_category().message(error_number)};
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
    if (max_bytes > 0 && text.size() > max_bytes) {
      ::close(fd);
      return ReadFailure{"", true};
    }
  }
  ::close(fd);
  return text;
}

std::variant<std::string, ReadFailure> read_regular_file(const std::string& path,
                                                         size_t max_bytes) {
  std::variant<int, std::string> opened = open_regular_file(path);
  if (auto* why = std::get_if<std::string>(&opened)) return ReadFailure{std::move(*why)};
  return read_to_end_and_close(std::get<int>(opened), max_bytes);
}

}  // namespace shareq
