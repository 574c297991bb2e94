#include "state_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <variant>

#include "regular_file.hpp"

namespace shareq::ctld {

std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text,
                                                 Durability durability) {
  const std::string tmp = path + ".new";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return tmp + ": cannot create: " + std::strerror(errno);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return tmp + ": cannot write: " + why;
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = durability == Durability::ProcessCrash || ::fsync(fd) == 0;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;  // always, also when the sync failed
  if (!synced || !closed) {
    const std::string why = std::strerror(synced ? errno : sync_errno);
    ::unlink(tmp.c_str());
    return tmp + (synced ? ": cannot close: " : ": cannot sync: ") + why;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return path + ": cannot rename into place: " + why;
  }
  return std::nullopt;
}

std::optional<std::string> read_state_file(const std::string& path) {
  // Read on first use under slurmctld's and shareq's locks: a FIFO there must not block.
  auto text = read_regular_file(path, 0);
  if (auto* whole = std::get_if<std::string>(&text)) return std::move(*whole);
  return std::nullopt;
}

}  // namespace shareq::ctld
