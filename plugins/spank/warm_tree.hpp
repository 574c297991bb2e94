// Removing a warm directory as root, when its user owns everything inside it and may still be
// changing it (a process left behind, or on purpose).
//
// A path-based walk (nftw, rm -r by path) can be redirected: between the walk's lstat of a
// subdirectory and its use of that path, the user swaps the subdirectory for a symbolic link to
// /etc, and root deletes there. So every step here is relative to a descriptor of a directory
// already open: each name is looked at (fstatat, AT_SYMLINK_NOFOLLOW) and opened (openat,
// O_NOFOLLOW | O_DIRECTORY) as one component of a directory we hold, and removed with unlinkat
// in that same directory. A name swapped for a link is removed as a link; a directory that was
// opened keeps being the one emptied, wherever it is moved; another file system (a mount point)
// is never entered.
#pragma once

#include <string>

#include "result.hpp"

namespace shareq::spank_plugin::node {

// The deepest nesting removed: one descriptor is open per level. Deeper trees are left in place
// (with an error) rather than risk running out of descriptors in the middle.
inline constexpr int kMaxRemoveDepth = 256;

// Removes the entry `name` (one path component, not "." or "..") of the directory open as
// `parent_fd`, and everything under it when it is a directory, without following a symbolic
// link and without leaving parent_fd's file system. Result: true when something was removed,
// false when there was nothing by that name. Errors (field "warm directory"): a mount point or a
// tree deeper than kMaxRemoveDepth inside it (left in place), a system call failing; what could
// be removed is removed.
Result<bool> remove_tree_at(int parent_fd, const std::string& name);

// remove_tree_at for an absolute `path` whose parent directories only root can change.
Result<bool> remove_tree(const std::string& path);

}  // namespace shareq::spank_plugin::node
