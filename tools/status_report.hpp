// shareq status: capacity and usage per family, quota and borrowing per share, from the Ledger
// the plugins decide with (usage = what the share's running and suspended jobs hold, reclaims in
// flight counted as slurmctld counts them, and its reserved warm pools), and per family the job
// that starts next by the scheduler's own decide() (cluster_state.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster_state.hpp"

namespace shareq::tool {

struct ShareStatus {
  std::string share;  // lower-case, as Slurm stores the account
  int64_t quota = 0;
  int64_t usage = 0;     // what its running jobs and reserved warm pools hold
  int64_t reserved = 0;  // of which its reserved warm pools (WarmPoolMode=reserve)
  int64_t borrowed = 0;  // max(0, usage - quota)
  int64_t borrow_limit = 0;
  int64_t lend_limit = 0;
  int64_t borrow_weight = kBorrowWeightScale;  // BorrowWeight, in thousandths
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
  std::optional<uint32_t>
      next_job;  // the pending job that starts next (ClusterState::next_to_start)
  std::string next_share;
  std::vector<ShareStatus> shares;  // every share with a Share= line in the family, by name
};

// Every family in shareq.conf order, or only `family`. A pending job that lists several families
// (-p p5,p4) counts in each of them.
// The decisions are taken at state.now(), when the data was read.
std::vector<FamilyStatus> family_status(const ClusterState& state,
                                        const std::optional<std::string>& family = std::nullopt);

// The two tables, then one line per family: "next to start in p5: job 42 (research)" or
// "next to start in p5: none (every pending job waits)".
std::string format_status(const std::vector<FamilyStatus>& families);
std::string format_status_json(const std::vector<FamilyStatus>& families);

}  // namespace shareq::tool
