// priority/shareq: Slurm's priorities from shareq's ordering (policy/ordering.hpp): jobs within
// their share's quota first, then by share standing, --share-priority and age. A background
// pass (recalc.hpp) recomputes every pending job and accrues decayed usage; sprio and sshare
// show the result.
//
// Slurm 22.05 looks up the six priority_p_* symbols of src/common/slurm_priority.c. The plugin
// is loaded by slurmctld and by sshare (which calls priority_p_calc_fs_factor); init() starts
// nothing outside slurmctld.
//
// Locks, per entry point (Slurm holds them when it calls; shareq adds only its own mutexes,
// always innermost, and assoc_mgr locks after slurmctld's, as locks.h requires):
//   priority_p_set: job write lock held by the caller (submission, requeue, release, update).
//   priority_p_reconfig: called under slurmctld's reconfigure locks; only flags and a config
//     re-read (file I/O under shareq's config mutex).
//   priority_p_set_assoc_usage: assoc_mgr assoc lock held by the caller (assoc_mgr_get_shares).
//   priority_p_calc_fs_factor: pure arithmetic (sshare).
//   priority_p_get_priority_factors_list: an RPC thread with no lock: takes the job, node and
//     partition read locks, like multifactor.
//   priority_p_job_end: job write lock held (job_completion_logger); takes assoc_mgr locks.
#include <algorithm>
#include <vector>

#include "assoc_usage.hpp"
#include "boundary.hpp"
#include "config_state.hpp"
#include "log.hpp"
#include "recalc.hpp"
#include "slurm_jobs.hpp"
#include "sprio_factors.h"
#include "slurmctld_headers.hpp"

extern "C" {
#include "src/common/slurm_protocol_defs.h"
}

SHAREQ_EXPORT const char plugin_name[] = "shareq priority plugin";
SHAREQ_EXPORT const char plugin_type[] = "priority/shareq";
SHAREQ_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

SHAREQ_EXPORT int init(void);
SHAREQ_EXPORT int fini(void);
SHAREQ_EXPORT uint32_t priority_p_set(uint32_t last_prio, job_record_t* job_ptr);
SHAREQ_EXPORT void priority_p_reconfig(bool assoc_clear);
SHAREQ_EXPORT void priority_p_set_assoc_usage(slurmdb_assoc_rec_t* assoc);
SHAREQ_EXPORT double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm);
SHAREQ_EXPORT List priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg,
                                                        uid_t uid);
SHAREQ_EXPORT void priority_p_job_end(job_record_t* job_ptr);

namespace {

using shareq::ctld::log_error;
using shareq::plugin::guarded;

void report(const char* where, const char* what) { log_error("priority: %s: %s", where, what); }

bool in_controller() { return running_in_slurmctld(); }

bool listed(List list, uint32_t value) {
  if (list == nullptr) return true;
  ListIterator it = list_iterator_create(list);
  bool found = false;
  while (auto* v = static_cast<uint32_t*>(list_next(it))) {
    if (*v == value) {
      found = true;
      break;
    }
  }
  list_iterator_destroy(it);
  return found;
}

// Whether `uid` may see `job` (PrivateData=jobs), as multifactor decides without MCS.
bool visible_to(const job_record_t* job, uid_t uid) {
  if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS) || job->user_id == uid) return true;
  return validate_operator(uid) || assoc_mgr_is_user_acct_coord(acct_db_conn, uid, job->account);
}

void add_factors(List out, const job_record_t* job, part_record_t* part) {
  auto* obj = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  if (job->direct_set_prio != 0) {
    obj->direct_prio = job->priority;
  } else if (job->prio_factors != nullptr) {
    slurm_copy_priority_factors_object(obj, job->prio_factors);
    xfree(obj->partition);  // the copy duplicates it; sprio's list owns none
  }
  obj->job_id = job->job_id;
  obj->partition = part->name;
  obj->user_id = job->user_id;
  list_append(out, obj);
}

// One row per partition of the job that passes the -p filter.
void add_job(List out, const job_record_t* job, const std::vector<part_record_t*>& parts) {
  const auto wanted = [&](part_record_t* p) {
    return parts.empty() || std::find(parts.begin(), parts.end(), p) != parts.end();
  };
  if (job->part_ptr_list != nullptr) {
    ListIterator it = list_iterator_create(job->part_ptr_list);
    while (auto* p = static_cast<part_record_t*>(list_next(it))) {
      if (wanted(p)) add_factors(out, job, p);
    }
    list_iterator_destroy(it);
  } else if (job->part_ptr != nullptr && wanted(job->part_ptr)) {
    add_factors(out, job, job->part_ptr);
  }
}

List factors_list(priority_factors_request_msg_t* req, uid_t uid) {
  slurmctld_lock_t job_read_lock{};
  job_read_lock.job = READ_LOCK;
  job_read_lock.node = READ_LOCK;
  job_read_lock.part = READ_LOCK;
  shareq::ctld::assert_no_shareq_lock("lock_slurmctld");
  lock_slurmctld(job_read_lock);
  std::vector<part_record_t*> parts;
  if (req->partitions != nullptr) {
    char* copy = xstrdup(req->partitions);
    char* save = nullptr;
    for (char* tok = strtok_r(copy, ",", &save); tok != nullptr;
         tok = strtok_r(nullptr, ",", &save)) {
      if (part_record_t* p = find_part_record(tok)) parts.push_back(p);
    }
    xfree(copy);
  }
  List out = list_create(slurm_destroy_priority_factors_object);
  const time_t now = time(nullptr);
  ListIterator it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (!IS_JOB_PENDING(job) || IS_JOB_REVOKED(job) || job->priority == 0) continue;
    if (job->details == nullptr || job->details->begin_time == 0 ||
        job->details->begin_time > now) {
      continue;  // not eligible yet, as multifactor
    }
    if (!listed(req->job_id_list, job->job_id) || !listed(req->uid_list, job->user_id)) continue;
    if (!visible_to(job, uid)) continue;
    if (req->partitions != nullptr && parts.empty()) continue;
    add_job(out, job, parts);
  }
  list_iterator_destroy(it);
  unlock_slurmctld(job_read_lock);
  if (list_count(out) == 0) FREE_NULL_LIST(out);
  return out;
}

}  // namespace

extern "C" int init(void) {
  return guarded(
      SLURM_ERROR,
      [] {
        if (!in_controller()) return SLURM_SUCCESS;  // sshare: calc_fs_factor only
        if (!shareq::ctld::current_config()) {
          log_error("priority: no good shareq.conf yet: every job gets priority %u until one loads",
                    SHAREQ_OUTSIDE_PRIORITY);
        }
        shareq::priority::start_recalc();
        shareq::ctld::log_info("priority: loaded");
        return SLURM_SUCCESS;
      },
      [](const char* what) { report("init", what); });
}

extern "C" int fini(void) {
  return guarded(
      SLURM_SUCCESS,
      [] {
        shareq::priority::stop_recalc();
        return SLURM_SUCCESS;
      },
      [](const char* what) { report("fini", what); });
}

extern "C" uint32_t priority_p_set(uint32_t last_prio, job_record_t* job_ptr) {
  (void)last_prio;
  return guarded(
      uint32_t{SHAREQ_OUTSIDE_PRIORITY}, [&] { return shareq::priority::priority_of(job_ptr); },
      [](const char* what) { report("set", what); });
}

extern "C" void priority_p_reconfig(bool assoc_clear) {
  (void)assoc_clear;
  guarded(
      0,
      [] {
        shareq::ctld::reload_config();
        shareq::ctld::forget_tres_pos();
        shareq::ctld::jobs_changed();
        shareq::priority::wake_recalc();
        return 0;
      },
      [](const char* what) { report("reconfig", what); });
}

extern "C" void priority_p_set_assoc_usage(slurmdb_assoc_rec_t* assoc) {
  guarded(
      0,
      [&] {
        shareq::priority::set_assoc_usage(assoc);
        return 0;
      },
      [](const char* what) { report("set_assoc_usage", what); });
}

extern "C" double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm) {
  return guarded(
      0.0, [&] { return shareq::priority::fs_factor(usage_efctv, shares_norm); },
      [](const char* what) { report("calc_fs_factor", what); });
}

extern "C" List priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg,
                                                     uid_t uid) {
  return guarded(
      static_cast<List>(nullptr), [&] { return factors_list(req_msg, uid); },
      [](const char* what) { report("get_priority_factors_list", what); });
}

extern "C" void priority_p_job_end(job_record_t* job_ptr) {
  guarded(
      0,
      [&] {
        shareq::priority::accrue_job_tail(job_ptr, shareq::priority::last_accrual());
        shareq::priority::release_run_seconds(job_ptr);
        return 0;
      },
      [](const char* what) { report("job_end", what); });
}
