// Which pending jobs a caller of sprio sees under PrivateData=jobs, as multifactor decides
// without MCS: their own jobs; every job when they are an operator; the jobs of the accounts they
// coordinate.
//
// Both questions may go to slurmdbd: Slurm's answers (validate_operator,
// assoc_mgr_is_user_acct_coord) fetch slurmdbd's user list when assoc_mgr holds none, which is
// the case when slurmctld started with slurmdbd unreachable and no state cache. sprio's call holds
// the job read lock, so each fetch would hold every job write (scheduling, submissions) behind
// slurmdbd's timeouts. Multifactor asks both questions per pending job. Here each is asked once
// per call (once per account), and, when assoc_mgr has no user list, not at all: the caller is an
// operator only as root or SlurmUser (validate_operator_user_rec's rule for a user slurmdbd does
// not know) and coordinates nothing, which is what Slurm answers once the fetch fails. The list
// comes back without sprio: slurmctld refreshes it when slurmdbd returns after a start from its
// state cache, and Slurm's own checks in other RPCs (squeue's validate_operator) fetch it on
// demand. job_submit/shareq's default account follows the same rule.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "slurmctld_headers.hpp"

namespace shareq::priority {

class JobVisibility {
 public:
  // Precondition for the object's life: the job read lock is held (sprio's call).
  explicit JobVisibility(uid_t caller);

  [[nodiscard]] bool sees(const job_record_t* job);

 private:
  [[nodiscard]] bool is_operator();
  [[nodiscard]] bool coordinates(const char* account);

  uid_t caller_;
  bool private_jobs_;
  bool users_known_;  // assoc_mgr holds slurmdbd's user list: asking costs no round trip
  std::optional<bool> is_operator_;
  std::map<std::string, bool> coordinates_;  // account -> whether the caller coordinates it
};

}  // namespace shareq::priority
