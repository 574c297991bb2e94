// job_submit/shareq: validates --share, --share-priority, --image and --keep-alive in slurmctld
// (the authority; the SPANK plugin's client-side checks are a courtesy), maps the share to the
// job's account, and records the accepted values on the job (spank_job_env, AdminComment).
//
// Slurm looks up "job_submit" and "job_modify" (src/slurmctld/job_submit.c, 22.05;
// src/interfaces/job_submit.c, 24.11, where job_modify also takes char **err_msg); both run in
// slurmctld's RPC threads with the config, job, node and partition locks held: read locks for a
// submission (write locks for a heterogeneous job's components), write locks for an update.
// 22.05 serialises them under job_submit.c's context mutex; 24.11 holds only a read lock on its
// context there, so calls may run concurrently.
#include <memory>
#include <string>

#include "boundary.hpp"
#include "config_state.hpp"
#include "image_digest.hpp"
#include "slurm_ctld.hpp"
#include "slurm_lock_guards.hpp"
#include "submit_shim.h"

SHAREQ_EXPORT const char plugin_name[] = "shareq job submit plugin";
SHAREQ_EXPORT const char plugin_type[] = "job_submit/shareq";
SHAREQ_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

SHAREQ_EXPORT int init(void);
SHAREQ_EXPORT int fini(void);
SHAREQ_EXPORT int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg);
#if SHAREQ_SLURM_JOB_MODIFY_ERR_MSG
SHAREQ_EXPORT int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid,
                             char** err_msg);
#else
SHAREQ_EXPORT int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid);
#endif

namespace {

using shareq::plugin::guarded;

void report(const char* where, const char* what) {
  error("shareq: job_submit: %s: %s", where, what);
}

// The user's default account, as slurmctld will assign it when the job names none: assoc_mgr's
// memory under its user read lock. Unlocked, assoc_mgr_fill_in_user fetches the whole user list
// from slurmdbd when it has none (slurmctld started without slurmdbd or its cache), under
// assoc_mgr's user write lock and the job write lock held here, at every such submission; with no
// list there is no default account to give.
std::string default_account(uint32_t uid) {
  assoc_mgr_lock_t locks{};
  locks.user = READ_LOCK;
  const shareq::ctld::AssocMgrLocks held(locks);
  if (assoc_mgr_user_list == nullptr) return {};
  slurmdb_user_rec_t user{};
  user.uid = uid;
  if (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce, nullptr, true) ==
          SLURM_ERROR ||
      user.default_acct == nullptr) {
    return {};
  }
  return user.default_acct;
}

// The accounts above `account` in slurmctld's association tree, nearest first, root left out,
// comma-separated: assoc_mgr's memory under its read lock, no I/O. A tree changed with
// `sacctmgr add account ... parent=` counts from the next submission.
std::string parent_accounts(const std::string& account) {
  if (account.empty() || assoc_mgr_root_assoc == nullptr) return {};
  assoc_mgr_lock_t locks{};
  locks.assoc = READ_LOCK;
  const shareq::ctld::AssocMgrLocks held(locks);
  slurmdb_assoc_rec_t rec{};
  rec.acct = const_cast<char*>(account.c_str());
  rec.uid = NO_VAL;  // the account's own association, not a user's
  slurmdb_assoc_rec_t* found = nullptr;
  std::string parents;
  if (assoc_mgr_fill_in_assoc(acct_db_conn, &rec, 0, &found, true) == SLURM_SUCCESS &&
      found != nullptr && found->usage != nullptr) {
    constexpr int kMaxDepth = 64;  // Slurm's tree has no cycles; bound the walk anyway
    int depth = 0;
    for (slurmdb_assoc_rec_t* a = found->usage->parent_assoc_ptr;
         a != nullptr && a != assoc_mgr_root_assoc && a->usage != nullptr && depth < kMaxDepth;
         a = a->usage->parent_assoc_ptr, ++depth) {
      if (a->acct == nullptr) continue;
      if (!parents.empty()) parents += ',';
      parents += a->acct;
    }
  }
  return parents;
}

// The controller's one shareq.conf (libshareq_ctld.so), as submit_shim's C handle.
std::shared_ptr<const shareq_conf_t> current_config() {
  std::shared_ptr<const shareq::ctld::LoadedConfig> loaded = shareq::ctld::current_config();
  if (!loaded) {
    return nullptr;
  }
  return {loaded, &loaded->conf};
}

// The image digest the job will run (image_digest.hpp), as SHAREQ_IMAGE_DIGEST in its
// spank_job_env: the warm-pool key and the node's fetch both use it. Known here only when pinned
// with no ImageStore; otherwise select sets it once the store has answered (no I/O here: this
// runs under slurmctld's locks).
int fix_image_digest(const shareq::Config& config, job_desc_msg_t* job_desc, char** err_msg) {
  shareq_env_unset(&job_desc->spank_job_env, &job_desc->spank_job_env_size, "SHAREQ_IMAGE_DIGEST");
  const char* image =
      shareq_env_get(job_desc->spank_job_env, job_desc->spank_job_env_size, "SHAREQ_IMAGE");
  if (image == nullptr || image[0] == '\0') return SLURM_SUCCESS;
  const shareq::submit::DigestOutcome out =
      shareq::submit::submission_digest(config, image, time(nullptr));
  if (!out.problem.empty()) {
    if (err_msg != nullptr) {
      xfree(*err_msg);
      *err_msg = xstrdup(("shareq: " + out.problem).c_str());
    }
    return SLURM_ERROR;
  }
  if (!out.digest.empty()) {
    shareq_env_set(&job_desc->spank_job_env, &job_desc->spank_job_env_size, "SHAREQ_IMAGE_DIGEST",
                   out.digest.c_str());
  }
  return SLURM_SUCCESS;
}

int submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
  const std::string account =
      job_desc->account != nullptr ? job_desc->account : default_account(job_desc->user_id);
  const std::string parents = parent_accounts(account);
  const shareq_admission_t admission{account.c_str(),
                                     job_desc->partition,
                                     default_part_name,
                                     /*share_follows_account=*/false,
                                     /*set_account=*/true,
                                     parents.c_str()};
  shareq_job_fields_t fields{&job_desc->account, &job_desc->admin_comment, &job_desc->spank_job_env,
                             &job_desc->spank_job_env_size, &job_desc->partition};
  const std::shared_ptr<const shareq_conf_t> conf = current_config();
  int rc = shareq_admit(conf.get(), &admission, &fields, err_msg);
  if (rc == SLURM_SUCCESS && conf) rc = fix_image_digest(conf->config, job_desc, err_msg);
  if (rc != SLURM_SUCCESS) {
    info("shareq: job_submit: refused a job of uid %u: %s", job_desc->user_id,
         (err_msg != nullptr && *err_msg != nullptr) ? *err_msg : "(no message)");
  } else if (job_desc->admin_comment != nullptr) {
    debug("shareq: job_submit: uid %u: %s", job_desc->user_id, job_desc->admin_comment);
  }
  (void)submit_uid;
  return rc;
}

// A user must not leave their share through `scontrol update Account= / Partition=`: a change
// of either is validated as a new submission would be (the new account's share applies). The
// refusal's words go to `user_msg` where the release passes one (scontrol shows them), and to the
// log.
int modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid, char** user_msg) {
  const bool account_changes =
      job_desc->account != nullptr && xstrcasecmp(job_desc->account, job_ptr->account) != 0;
  const bool partition_changes =
      job_desc->partition != nullptr && xstrcmp(job_desc->partition, job_ptr->partition) != 0;
  if (!account_changes && !partition_changes) {
    return SLURM_SUCCESS;
  }

  const char* account = account_changes ? job_desc->account : job_ptr->account;
  const std::string parents = parent_accounts(account != nullptr ? account : "");
  const shareq_admission_t admission{account,
                                     partition_changes ? job_desc->partition : job_ptr->partition,
                                     default_part_name,
                                     /*share_follows_account=*/account_changes,
                                     /*set_account=*/false,
                                     parents.c_str()};
  // The job record itself is updated (job write lock held): slurmctld does not let a
  // non-admin's update carry an AdminComment.
  // A new partition list gets its fallback families' partitions, as at submission.
  shareq_job_fields_t fields{&job_ptr->account, &job_ptr->admin_comment, &job_ptr->spank_job_env,
                             &job_ptr->spank_job_env_size,
                             partition_changes ? &job_desc->partition : nullptr};
  char* err_msg = nullptr;
  const std::shared_ptr<const shareq_conf_t> conf = current_config();
  const int rc = shareq_admit(conf.get(), &admission, &fields, &err_msg);
  if (rc != SLURM_SUCCESS) {
    info("shareq: job_modify: refused update of JobId=%u by uid %u: %s", job_ptr->job_id,
         submit_uid, err_msg != nullptr ? err_msg : "(no message)");
    if (user_msg != nullptr && err_msg != nullptr) {
      xfree(*user_msg);
      *user_msg = err_msg;
      err_msg = nullptr;
    }
  }
  xfree(err_msg);
  return rc;
}

}  // namespace

extern "C" int init(void) {
  return guarded(
      SLURM_ERROR,
      [] {
        const bool good = shareq::ctld::current_config() != nullptr;
        shareq::submit::start_asking_store();
        info("shareq: job_submit: loaded, configuration %s%s",
             shareq::ctld::shareq_conf_path(
                 slurm_conf.slurm_conf != nullptr ? slurm_conf.slurm_conf : "/etc/slurm/slurm.conf")
                 .c_str(),
             good ? "" : " (not usable yet)");
        return SLURM_SUCCESS;
      },
      [](const char* what) { report("init", what); });
}

extern "C" int fini(void) {
  return guarded(
      SLURM_SUCCESS,
      [] {
        (void)shareq::submit::stop_asking_store();  // logs when it has to leave the thread
        return SLURM_SUCCESS;
      },
      [](const char* what) { report("fini", what); });
}

extern "C" int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
  return guarded(
      SLURM_ERROR, [&] { return submit(job_desc, submit_uid, err_msg); },
      [](const char* what) { report("submit", what); });
}

#if SHAREQ_SLURM_JOB_MODIFY_ERR_MSG
extern "C" int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid,
                          char** err_msg) {
  return guarded(
      SLURM_ERROR, [&] { return modify(job_desc, job_ptr, submit_uid, err_msg); },
      [](const char* what) { report("modify", what); });
}
#else
extern "C" int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid) {
  return guarded(
      SLURM_ERROR, [&] { return modify(job_desc, job_ptr, submit_uid, nullptr); },
      [](const char* what) { report("modify", what); });
}
#endif
