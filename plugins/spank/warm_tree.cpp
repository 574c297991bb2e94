#include "warm_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "imagecache/fs_util.hpp"

namespace shareq::spank_plugin::node {
namespace {

using imagecache::fs::errno_text;
using imagecache::fs::UniqueFd;

Error failure(const std::string& shown, const std::string& what) {
  return Error{"warm directory", shown + ": " + what};
}

Error errno_failure(const std::string& shown, const char* call, int err) {
  return failure(shown, std::string(call) + " failed: " + errno_text(err));
}

// The names in the directory open as dir_fd, without "." and "..".
Result<std::vector<std::string>> names_in(int dir_fd, const std::string& shown) {
  const int copy = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return errno_failure(shown, "dup", errno);
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    const int err = errno;
    ::close(copy);
    return errno_failure(shown, "fdopendir", err);
  }
  ::rewinddir(dir);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.emplace_back(e->d_name);
    }
  }
  const int err = errno;
  ::closedir(dir);
  if (err != 0) return errno_failure(shown, "readdir", err);
  return names;
}

Result<bool> remove_at(int parent_fd, const std::string& name, dev_t device,
                       const std::string& shown, int depth);

// Removes everything in the directory open as dir_fd; the first error, after trying every entry.
Result<bool> empty_dir(int dir_fd, dev_t device, const std::string& shown, int depth) {
  auto names = names_in(dir_fd, shown);
  if (!names) return names.error();
  std::optional<Error> first;
  for (const std::string& name : names.value()) {
    auto removed = remove_at(dir_fd, name, device, shown + "/" + name, depth);
    if (!removed && !first) first = removed.error();
  }
  if (first) return *first;
  return true;
}

// Removes a name that is not (or no longer) a directory: a file, or a link as the link itself.
Result<bool> unlink_name(int parent_fd, const std::string& name, const std::string& shown) {
  if (::unlinkat(parent_fd, name.c_str(), 0) == 0) return true;
  if (errno == ENOENT) return false;
  return errno_failure(shown, "unlinkat", errno);
}

Result<bool> remove_dir(int parent_fd, const std::string& name, dev_t device,
                        const std::string& shown, int depth) {
  if (depth >= kMaxRemoveDepth) {
    return failure(shown, "nested deeper than " + std::to_string(kMaxRemoveDepth) +
                              " directories; left in place");
  }
  UniqueFd dir(::openat(parent_fd, name.c_str(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (!dir.valid()) {
    // Swapped for a link (ELOOP) or a file (ENOTDIR) since fstatat: remove that name only.
    if (errno == ELOOP || errno == ENOTDIR) return unlink_name(parent_fd, name, shown);
    if (errno == ENOENT) return false;
    return errno_failure(shown, "openat", errno);
  }
  struct stat opened {};
  if (::fstat(dir.get(), &opened) != 0) return errno_failure(shown, "fstat", errno);
  if (opened.st_dev != device) return failure(shown, "a mount point; not entered");
  // A user process may still be creating files in it: a few passes, then give up.
  for (int pass = 1;; ++pass) {
    auto emptied = empty_dir(dir.get(), device, shown, depth + 1);
    if (!emptied) return emptied.error();
    if (::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0) return true;
    // Swapped for a link or a file after it was opened: the directory emptied above is wherever
    // the user moved it; remove the name that is here now, as itself.
    if (errno == ENOTDIR) return unlink_name(parent_fd, name, shown);
    if (errno == ENOENT) return true;
    if (errno != ENOTEMPTY || pass == 3) return errno_failure(shown, "unlinkat", errno);
  }
}

Result<bool> remove_at(int parent_fd, const std::string& name, dev_t device,
                       const std::string& shown, int depth) {
  struct stat st {};
  if (::fstatat(parent_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    return errno_failure(shown, "fstatat", errno);
  }
  if (!S_ISDIR(st.st_mode)) return unlink_name(parent_fd, name, shown);
  if (st.st_dev != device) return failure(shown, "a mount point; not entered");
  return remove_dir(parent_fd, name, device, shown, depth);
}

}  // namespace

Result<bool> remove_tree_at(int parent_fd, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return failure(name, "not a single name in its directory");
  }
  struct stat parent {};
  if (::fstat(parent_fd, &parent) != 0) return errno_failure(name, "fstat", errno);
  return remove_at(parent_fd, name, parent.st_dev, name, 0);
}

Result<bool> remove_tree(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (path.empty() || path.front() != '/' || slash == path.size() - 1) {
    return failure(path, "not an absolute path to a directory entry");
  }
  const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
  UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd.valid()) {
    if (errno == ENOENT) return false;
    return errno_failure(parent, "open", errno);
  }
  auto removed = remove_tree_at(parent_fd.get(), path.substr(slash + 1));
  if (!removed) return Error{"warm directory", parent + "/" + removed.error().message};
  return removed;
}

}  // namespace shareq::spank_plugin::node
