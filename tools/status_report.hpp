// shareq status: capacity and usage per family, quota and borrowing per share, from the Ledger
// the plugins decide with (usage = what the share's running and suspended jobs hold).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster_state.hpp"

namespace shareq::tool {

struct ShareStatus {
  std::string share;  // lower-case, as Slurm stores the account
  int64_t quota = 0;
  int64_t usage = 0;     // what its running jobs hold
  int64_t borrowed = 0;  // max(0, usage - quota)
  int64_t borrow_limit = 0;
  int64_t lend_limit = 0;
  int running_jobs = 0;
  int pending_jobs = 0;  // pending jobs that may run in this family
  int64_t demand = 0;    // what they ask of it together
};

struct FamilyStatus {
  std::string name;
  Unit unit = Unit::Node;
  int64_t capacity = 0;
  int64_t used = 0;
  int64_t idle = 0;
  int64_t borrowed = 0;  // all shares together
  int64_t lendable =
      0;  // what borrowers may hold in total (unassigned + LendLimit-allowed unused quota)
  int pending_jobs = 0;
  int64_t demand = 0;
  std::vector<ShareStatus> shares;  // every share with a Share= line in the family, by name
};

// Every family in shareq.conf order, or only `family`. A pending job that lists several families
// (-p p5,p4) counts in each of them.
std::vector<FamilyStatus> family_status(const ClusterState& state,
                                        const std::optional<std::string>& family = std::nullopt);

std::string format_status(const std::vector<FamilyStatus>& families);
std::string format_status_json(const std::vector<FamilyStatus>& families);

}  // namespace shareq::tool
