// select/shareq_cons_tres: Slurm's select/cons_tres with shareq's placement hook in front of
// select_p_job_test. Every other entry point forwards unchanged.
//
// Each select_p_* function is first declared from select_ops.h, this release's table of the
// select interface (checked against Slurm's own table where a header has it), so a definition
// whose signature drifts from it is a compile error ("conflicting declaration of C function"),
// and an entry point the release lacks is neither defined nor exported.
#include "boundary.hpp"
#include "cons_tres.hpp"
#include "failed_runs.hpp"
#include "job_test_hook.hpp"
#include "recent_ends.hpp"
#include "reclaim_claims.hpp"
#include "slurm_jobs.hpp"
#include "warm_pools.hpp"

#ifndef SHAREQ_CONS_TRES_PATH
#error "SHAREQ_CONS_TRES_PATH must name select_cons_tres.so"
#endif

using shareq::plugin::guarded;
using shareq::select::cons_tres;

SHAREQ_EXPORT const char plugin_name[] = "shareq select plugin (wraps select/cons_tres)";
// Contains "cons_tres": slurmctld tests the type string for it (GRES, dynamic nodes).
SHAREQ_EXPORT const char plugin_type[] = "select/shareq_cons_tres";
// Unique among select plugins and >= 100 (select_g_init checks); cons_tres is 109.
SHAREQ_EXPORT const uint32_t plugin_id = 250;
SHAREQ_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

namespace {

const shareq::select::SelectOps& ops() { return cons_tres().ops(); }

void report(const char* where, const char* what) { error("shareq: select: %s: %s", where, what); }

}  // namespace

SHAREQ_EXPORT int init(void);
SHAREQ_EXPORT int fini(void);
SHAREQ_EXPORT int select_p_job_test SHAREQ_SELECT_JOB_TEST_PARAMS;
#define SHAREQ_DECLARE(member, symbol, ret, params, args) SHAREQ_EXPORT ret symbol params;
SHAREQ_SELECT_OPS(SHAREQ_DECLARE)
#undef SHAREQ_DECLARE

// Called by every process that loads select plugins: slurmctld, slurmd and clients.
extern "C" int init(void) {
  return guarded(
      SLURM_ERROR,
      [] {
        const int rc = cons_tres().load(SHAREQ_CONS_TRES_PATH);
        if (rc != SLURM_SUCCESS) {
          return rc;
        }
        // Clients load every select plugin too: say it loudly in the controller only.
        if (running_in_slurmctld()) {
          info("shareq: select: wrapping select/cons_tres");
        } else {
          debug("shareq: select: wrapping select/cons_tres");
        }
        return rc;
      },
      [](const char* what) { report("init", what); });
}

extern "C" int fini(void) {
  return guarded(
      SLURM_ERROR, [] { return cons_tres().unload(); },
      [](const char* what) { report("fini", what); });
}

// slurmctld, job write lock and node/partition locks held. The signature is Slurm's.
// NOLINTBEGIN(readability-non-const-parameter)
extern "C" int select_p_job_test SHAREQ_SELECT_JOB_TEST_PARAMS {
  // NOLINTEND(readability-non-const-parameter)
  const shareq::select::JobTestArgs args{job_ptr,
                                         node_bitmap,
                                         min_nodes,
                                         max_nodes,
                                         req_nodes,
                                         mode,
                                         preemptee_candidates,
                                         preemptee_job_list,
                                         SHAREQ_SELECT_JOB_TEST_TAIL_NAMES,
                                         time(nullptr)};
  const int rc = guarded(
      SLURM_ERROR, [&] { return shareq::select::job_test(args); },
      [](const char* what) { report("job_test", what); });
  if (!SHAREQ_SLURM_SELECT_REASON_KEPT && rc != SLURM_SUCCESS && mode == SELECT_MODE_RUN_NOW &&
      job_ptr != nullptr && job_ptr->state_desc != nullptr) {
    // select_nodes() is about to drop shareq's words (wait_reasons.hpp): a ranking pass right
    // after this scheduling pass puts them back.
    shareq::ctld::ranking_wanted();
  }
  return rc;
}

// Everything below forwards to select/cons_tres. Where cons_tres learns that a job's allocation
// changed, the shared controller view (libshareq_ctld.so, slurm_jobs.hpp) learns it too, after
// cons_tres succeeded: its registry of running allocations is what every shareq decision
// counts (slurmctld holds the job write lock at each of these calls).

namespace {

// Runs `learn` and returns cons_tres's `rc` whatever it does: a failure to learn (a bad_alloc)
// is logged, never passed to Slurm, and never changes what cons_tres answered.
template <typename Learn>
int learning(int rc, const char* where, Learn learn) {
  guarded(
      0,
      [&] {
        learn();
        return 0;
      },
      [where](const char* what) { report(where, what); });
  return rc;
}

int allocated(int rc, job_record_t* job) {
  if (rc != SLURM_SUCCESS) return rc;
  return learning(rc, "job allocated", [job] {
    shareq::ctld::job_allocated(job);
    shareq::ctld::claim_ended(job->job_id);  // a job that reclaimed has started
  });
}

int released(int rc, job_record_t* job) {
  return learning(rc, "job released", [job] {
    shareq::ctld::job_released(job);
    shareq::ctld::claim_ended(job->job_id);
  });
}

int changed(int rc) {
  return learning(rc, "jobs changed", [] { shareq::ctld::jobs_changed(); });
}

// Tells the controller state (warm pools, fallback notes; slurmctld only) about a job starting or
// ending; an exception is logged, never passed to Slurm.
template <typename Notify>
void tell_controller(const char* where, Notify notify) {
  if (running_in_slurmctld()) learning(0, where, [&] { notify(time(nullptr)); });
}

}  // namespace

extern "C" int select_p_state_save(char* dir_name) { return ops().state_save(dir_name); }

extern "C" int select_p_state_restore(char* dir_name) { return ops().state_restore(dir_name); }

extern "C" int select_p_job_init(list_t* job_list) {
  return learning(ops().job_init(job_list), "job_init",
                  [job_list] { shareq::ctld::jobs_reset(job_list); });
}

extern "C" int select_p_node_init(void) { return ops().node_init(); }

extern "C" int select_p_job_begin(job_record_t* job_ptr) {
  const int rc = allocated(ops().job_begin(job_ptr), job_ptr);
  if (rc == SLURM_SUCCESS) {
    tell_controller("job_begin (warm pools)",
                    [&](time_t now) { shareq::ctld::warm_job_started(job_ptr, now); });
    tell_controller("job_begin (fallback)",
                    [&](time_t now) { shareq::select::job_started(job_ptr, now); });
  }
  return rc;
}

extern "C" int select_p_job_ready(job_record_t* job_ptr) { return ops().job_ready(job_ptr); }

extern "C" int select_p_job_expand(job_record_t* from_job_ptr, job_record_t* to_job_ptr) {
  const int rc = ops().job_expand(from_job_ptr, to_job_ptr);
  allocated(rc, from_job_ptr);
  return allocated(rc, to_job_ptr);
}

extern "C" int select_p_job_resized(job_record_t* job_ptr, node_record_t* node_ptr) {
  return allocated(ops().job_resized(job_ptr, node_ptr), job_ptr);
}

#if SHAREQ_SLURM_SERIES(22, 5)
extern "C" int select_p_job_signal(job_record_t* job_ptr, int signal) {
  return ops().job_signal(job_ptr, signal);
}
#endif

extern "C" int select_p_job_fini(job_record_t* job_ptr) {
  const int rc = released(ops().job_fini(job_ptr), job_ptr);
  if (running_in_slurmctld()) {
    guarded(
        0,
        [&] {
          shareq::select::job_ended(job_ptr, time(nullptr));
          return 0;
        },
        [](const char* what) { report("job_fini (recent ends)", what); });
  }
  tell_controller("job_fini (warm pools)",
                  [&](time_t now) { shareq::ctld::warm_job_ended(job_ptr, now); });
  tell_controller("job_fini (failed runs)",
                  [&](time_t now) { shareq::ctld::run_ended(job_ptr, now); });
  return rc;
}

extern "C" int select_p_job_suspend(job_record_t* job_ptr, bool indf_susp) {
  return changed(ops().job_suspend(job_ptr, indf_susp));
}

extern "C" int select_p_job_resume(job_record_t* job_ptr, bool indf_susp) {
  return allocated(ops().job_resume(job_ptr, indf_susp), job_ptr);
}

extern "C" bitstr_t* select_p_step_pick_nodes(job_record_t* job_ptr, select_jobinfo_t* step_jobinfo,
                                              uint32_t node_count, bitstr_t** avail_nodes) {
  return ops().step_pick_nodes(job_ptr, step_jobinfo, node_count, avail_nodes);
}

extern "C" int select_p_step_start(step_record_t* step_ptr) { return ops().step_start(step_ptr); }

extern "C" int select_p_step_finish(step_record_t* step_ptr, bool killing_step) {
  return ops().step_finish(step_ptr, killing_step);
}

extern "C" int select_p_select_nodeinfo_pack(select_nodeinfo_t* nodeinfo, buf_t* buffer,
                                             uint16_t protocol_version) {
  return ops().nodeinfo_pack(nodeinfo, buffer, protocol_version);
}

extern "C" int select_p_select_nodeinfo_unpack(select_nodeinfo_t** nodeinfo, buf_t* buffer,
                                               uint16_t protocol_version) {
  return ops().nodeinfo_unpack(nodeinfo, buffer, protocol_version);
}

extern "C" select_nodeinfo_t* select_p_select_nodeinfo_alloc(void) {
  return ops().nodeinfo_alloc();
}

extern "C" int select_p_select_nodeinfo_free(select_nodeinfo_t* nodeinfo) {
  return ops().nodeinfo_free(nodeinfo);
}

extern "C" int select_p_select_nodeinfo_set_all(void) { return ops().nodeinfo_set_all(); }

extern "C" int select_p_select_nodeinfo_set(job_record_t* job_ptr) {
  const int rc = ops().nodeinfo_set(job_ptr);
  if (job_ptr != nullptr && (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))) {
    allocated(rc, job_ptr);
  }
  return rc;
}

extern "C" int select_p_select_nodeinfo_get(select_nodeinfo_t* nodeinfo,
                                            enum select_nodedata_type dinfo, enum node_states state,
                                            void* data) {
  return ops().nodeinfo_get(nodeinfo, dinfo, state, data);
}

extern "C" select_jobinfo_t* select_p_select_jobinfo_alloc(void) { return ops().jobinfo_alloc(); }

extern "C" int select_p_select_jobinfo_free(select_jobinfo_t* jobinfo) {
  return ops().jobinfo_free(jobinfo);
}

extern "C" int select_p_select_jobinfo_set(select_jobinfo_t* jobinfo,
                                           enum select_jobdata_type data_type, void* data) {
  return ops().jobinfo_set(jobinfo, data_type, data);
}

extern "C" int select_p_select_jobinfo_get(select_jobinfo_t* jobinfo,
                                           enum select_jobdata_type data_type, void* data) {
  return ops().jobinfo_get(jobinfo, data_type, data);
}

extern "C" select_jobinfo_t* select_p_select_jobinfo_copy(select_jobinfo_t* jobinfo) {
  return ops().jobinfo_copy(jobinfo);
}

extern "C" int select_p_select_jobinfo_pack(select_jobinfo_t* jobinfo, buf_t* buffer,
                                            uint16_t protocol_version) {
  return ops().jobinfo_pack(jobinfo, buffer, protocol_version);
}

extern "C" int select_p_select_jobinfo_unpack(select_jobinfo_t** jobinfo_pptr, buf_t* buffer,
                                              uint16_t protocol_version) {
  return ops().jobinfo_unpack(jobinfo_pptr, buffer, protocol_version);
}

#if SHAREQ_SLURM_SERIES(22, 5)
extern "C" char* select_p_select_jobinfo_sprint(select_jobinfo_t* jobinfo, char* buf, size_t size,
                                                int mode) {
  return ops().jobinfo_sprint(jobinfo, buf, size, mode);
}

extern "C" char* select_p_select_jobinfo_xstrdup(select_jobinfo_t* jobinfo, int mode) {
  return ops().jobinfo_xstrdup(jobinfo, mode);
}
#endif

extern "C" int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
                                             job_record_t* job_ptr, void* data) {
  return ops().get_info_from_plugin(dinfo, job_ptr, data);
}

#if SHAREQ_SLURM_SERIES(22, 5)
extern "C" int select_p_update_node_config(int index) { return ops().update_node_config(index); }
#endif

extern "C" int select_p_reconfigure(void) { return changed(ops().reconfigure()); }

#if SHAREQ_SLURM_SERIES(22, 5)
extern "C" bitstr_t* select_p_resv_test(resv_desc_msg_t* resv_desc_ptr, uint32_t node_cnt,
                                        bitstr_t* avail_bitmap, bitstr_t** core_bitmap) {
  return ops().resv_test(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap);
}
#endif
