// What shareq.conf's shares mean in a site's Slurm account tree: a share covers its account and
// every account below it, and the nearest listed account above a job's account wins. These notes
// tell an admin where the tree makes that surprising (`shareq check-config --accounts`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config.hpp"

namespace shareq {

// One account and its parent ("" for an account directly under root), as sacctmgr lists them.
using AccountParent = std::pair<std::string, std::string>;

// Notes, one line each, sorted: a share listed below another share's account (its own share:
// the other's quota does not cover it), and a share that is no account in the tree (no job can
// run under it until the account exists). Names compare without case. A cycle in `tree` ends the
// walk (Slurm's tree has none).
std::vector<std::string> account_tree_notes(const Config& config,
                                            const std::vector<AccountParent>& tree);

}  // namespace shareq
