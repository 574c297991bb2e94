// priority/shareq: Slurm's priorities from shareq's ordering (policy/ordering.hpp): jobs within
// their share's quota first, then by share standing, --share-priority and age. A background
// pass (recalc.hpp) recomputes every pending job and accrues decayed usage; sprio and sshare
// show the result.
//
// Slurm looks up the priority_p_* symbols of src/common/slurm_priority.c (22.05: six) or
// src/interfaces/priority.c (24.11: eight, with priority_p_recover and priority_p_thread_start);
// slurm_compat.h says which this release has. The plugin is loaded by slurmctld and by sshare
// (which calls priority_p_calc_fs_factor); nothing starts outside slurmctld.
//
// Locks, per entry point (Slurm holds them when it calls; shareq adds only its own mutexes,
// always innermost, and assoc_mgr locks after slurmctld's, as locks.h requires):
//   priority_p_set: job write lock held by the caller (submission, requeue, release, update).
//   priority_p_reconfig: called after scontrol reconfigure (no lock) and by the setdebugflags and
//     fsdampeningfactor RPCs (under slurmctld's locks): sets flags and wakes the thread, which
//     re-reads shareq.conf and the gres/gpu position; no file I/O, no wait on a shareq lock.
//   priority_p_set_assoc_usage: assoc_mgr assoc lock held by the caller (assoc_mgr_get_shares).
//   priority_p_calc_fs_factor: pure arithmetic (sshare).
//   priority_p_get_priority_factors_list: 22.05: an RPC thread with no lock: takes the job, node
//     and partition read locks, like multifactor; 24.11: the RPC holds them (and the assoc_mgr
//     QOS read lock).
//   priority_p_recover (24.11): after job state recovery; nothing to do.
//   priority_p_thread_start (24.11): starts the background pass (init() does in 22.05).
//   priority_p_job_end: job write lock held (job_completion_logger); takes assoc_mgr locks.
#include <algorithm>
#include <string>
#include <vector>

#include "assoc_usage.hpp"
#include "boundary.hpp"
#include "config_state.hpp"
#include "job_visibility.hpp"
#include "log.hpp"
#include "recalc.hpp"
#include "slurm_jobs.hpp"
#include "sprio_factors.h"
#include "slurmctld_headers.hpp"
#include "slurm_lock_guards.hpp"

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
#if SHAREQ_SLURM_PRIORITY_CALC_FS_FACTOR
SHAREQ_EXPORT double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm);
#endif
#if SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
SHAREQ_EXPORT list_t* priority_p_get_priority_factors_list(uid_t uid);
#else
SHAREQ_EXPORT list_t* priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg,
                                                           uid_t uid);
#endif
SHAREQ_EXPORT void priority_p_job_end(job_record_t* job_ptr);
#if SHAREQ_SLURM_PRIORITY_RECOVER
SHAREQ_EXPORT uint32_t priority_p_recover(uint32_t prio_boost);
#endif
#if SHAREQ_SLURM_PRIORITY_THREAD_START
SHAREQ_EXPORT void priority_p_thread_start(void);
#endif

namespace {

using shareq::ctld::log_error;
using shareq::plugin::guarded;

void report(const char* where, const char* what) { log_error("priority: %s: %s", where, what); }

bool in_controller() { return running_in_slurmctld(); }

bool listed(list_t* list, uint32_t value) {
  if (list == nullptr) return true;
  list_itr_t* it = list_iterator_create(list);
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

#if SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
// The row owns its strings and a copy of the job's factors (slurm_destroy_priority_factors_object
// frees them), as multifactor's rows. One row per partition, with the job's QOS.
void add_factors(list_t* out, const job_record_t* job, part_record_t* part) {
  auto* obj = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  obj->account = xstrdup(job->account);
  obj->job_id = job->job_id;
  obj->partition = xstrdup(part->name);
  obj->qos = xstrdup(job->qos_ptr != nullptr ? job->qos_ptr->name : nullptr);
  obj->user_id = job->user_id;
  if (job->direct_set_prio != 0) {
    obj->direct_prio = job->priority;
  } else {
    obj->prio_factors = static_cast<priority_factors_t*>(xmalloc(sizeof(priority_factors_t)));
    slurm_copy_priority_factors(obj->prio_factors, job->prio_factors);  // NULL: all zero
  }
  list_append(out, obj);
}
#else
// The row is the job's factors; its partition is the partition's own string (the list's
// destructor frees only the TRES arrays).
void add_factors(list_t* out, const job_record_t* job, part_record_t* part) {
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
#endif

// One row per partition of the job that passes the -p filter.
void add_job(list_t* out, const job_record_t* job, const std::vector<part_record_t*>& parts) {
  const auto wanted = [&](part_record_t* p) {
    return parts.empty() || std::find(parts.begin(), parts.end(), p) != parts.end();
  };
  if (job->part_ptr_list != nullptr) {
    list_itr_t* it = list_iterator_create(job->part_ptr_list);
    while (auto* p = static_cast<part_record_t*>(list_next(it))) {
      if (wanted(p)) add_factors(out, job, p);
    }
    list_iterator_destroy(it);
  } else if (job->part_ptr != nullptr && wanted(job->part_ptr)) {
    add_factors(out, job, job->part_ptr);
  }
}

// The filters sprio asked for (22.05); none where sprio filters the rows itself (`req` NULL).
struct Filter {
  list_t* job_ids = nullptr;
  list_t* uids = nullptr;
  const char* partitions = nullptr;
};

// The caller holds the job, node and partition read locks.
list_t* factors_list(const Filter& req, uid_t uid) {
  std::vector<part_record_t*> parts;
  if (req.partitions != nullptr) {
    char* copy = xstrdup(req.partitions);
    char* save = nullptr;
    for (char* tok = strtok_r(copy, ",", &save); tok != nullptr;
         tok = strtok_r(nullptr, ",", &save)) {
      if (part_record_t* p = find_part_record(tok)) parts.push_back(p);
    }
    xfree(copy);
  }
  list_t* out = list_create(slurm_destroy_priority_factors_object);
  const time_t now = time(nullptr);
  shareq::priority::JobVisibility visibility(uid);
  list_itr_t* it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (!IS_JOB_PENDING(job) || IS_JOB_REVOKED(job) || job->priority == 0) continue;
    if (job->details == nullptr || job->details->begin_time == 0 ||
        job->details->begin_time > now) {
      continue;  // not eligible yet, as multifactor
    }
    if (!listed(req.job_ids, job->job_id) || !listed(req.uids, job->user_id)) continue;
    if (!visibility.sees(job)) continue;
    if (req.partitions != nullptr && parts.empty()) continue;
    add_job(out, job, parts);
  }
  list_iterator_destroy(it);
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
#if !SHAREQ_SLURM_PRIORITY_THREAD_START
        shareq::priority::start_recalc();  // later: priority_p_thread_start
#endif
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
        // Flags only: the thread woken below re-reads shareq.conf and looks gres/gpu up again
        // (Slurm may hold its locks here: setdebugflags, fsdampeningfactor).
        shareq::ctld::request_config_reload();
        shareq::ctld::request_tres_pos_refresh();
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

#if SHAREQ_SLURM_PRIORITY_CALC_FS_FACTOR
extern "C" double priority_p_calc_fs_factor(long double usage_efctv, long double shares_norm) {
  return guarded(
      0.0, [&] { return shareq::priority::fs_factor(usage_efctv, shares_norm); },
      [](const char* what) { report("calc_fs_factor", what); });
}
#endif

#if SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
// The RPC holds the job, node and partition read locks and the assoc_mgr QOS read lock; sprio
// filters the rows.
extern "C" list_t* priority_p_get_priority_factors_list(uid_t uid) {
  return guarded(
      static_cast<list_t*>(nullptr), [&] { return factors_list(Filter{}, uid); },
      [](const char* what) { report("get_priority_factors_list", what); });
}
#else
// An RPC thread with no lock: takes the job, node and partition read locks, like multifactor.
extern "C" list_t* priority_p_get_priority_factors_list(priority_factors_request_msg_t* req_msg,
                                                        uid_t uid) {
  return guarded(
      static_cast<list_t*>(nullptr),
      [&] {
        slurmctld_lock_t job_read_lock{};
        job_read_lock.job = READ_LOCK;
        job_read_lock.node = READ_LOCK;
        job_read_lock.part = READ_LOCK;
        const shareq::ctld::SlurmctldLocks held(job_read_lock);
        return factors_list(Filter{req_msg->job_id_list, req_msg->uid_list, req_msg->partitions},
                            uid);
      },
      [](const char* what) { report("get_priority_factors_list", what); });
}
#endif

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

#if SHAREQ_SLURM_PRIORITY_RECOVER
// After slurmctld recovered its job state (sync_job_priorities). The boost keeps priority/basic's
// decreasing priorities above zero; shareq's are absolute, so none.
extern "C" uint32_t priority_p_recover(uint32_t prio_boost) {
  (void)prio_boost;
  return 0;
}
#endif

#if SHAREQ_SLURM_PRIORITY_THREAD_START
// slurmctld, once its configuration and state are read (controller.c, under the config write
// lock): the background pass starts here, not in init(), which runs under slurmctld's write locks.
extern "C" void priority_p_thread_start(void) {
  guarded(
      0,
      [] {
        if (in_controller()) shareq::priority::start_recalc();
        return 0;
      },
      [](const char* what) { report("thread_start", what); });
}
#endif
