#include "job_visibility.hpp"

#include "slurm_lock_guards.hpp"

namespace shareq::priority {
namespace {

bool assoc_mgr_has_users() {
  assoc_mgr_lock_t locks{};
  locks.user = READ_LOCK;
  const ctld::AssocMgrLocks held(locks);
  return assoc_mgr_user_list != nullptr;
}

}  // namespace

JobVisibility::JobVisibility(uid_t caller)
    : caller_(caller),
      private_jobs_((slurm_conf.private_data & PRIVATE_DATA_JOBS) != 0),
      users_known_(private_jobs_ && assoc_mgr_has_users()) {}

bool JobVisibility::sees(const job_record_t* job) {
  if (!private_jobs_ || job->user_id == caller_) return true;
  return is_operator() || coordinates(job->account);
}

bool JobVisibility::is_operator() {
  if (!is_operator_) {
    if (users_known_) {
      is_operator_ = validate_operator(caller_);
    } else {
      slurmdb_user_rec_t unknown{};  // admin level none: root and SlurmUser only
      unknown.uid = caller_;
      is_operator_ = validate_operator_user_rec(&unknown);
    }
  }
  return *is_operator_;
}

bool JobVisibility::coordinates(const char* account) {
  if (account == nullptr || !users_known_) return false;
  const auto [known, added] = coordinates_.try_emplace(account, false);
  if (added) {
    known->second = shareq_is_user_acct_coord(acct_db_conn, caller_, const_cast<char*>(account));
  }
  return known->second;
}

}  // namespace shareq::priority
