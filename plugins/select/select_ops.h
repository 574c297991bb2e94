// The select plugin interface of the Slurm release shareq builds against, as one table: every
// entry point slurmctld, slurmd and the clients look up in a select plugin (node_select_syms[] in
// src/common/select.c, 22.05: 37 symbols; src/interfaces/select.c, 24.11: 32), except
// plugin_id. Both select/shareq_cons_tres's own exports (select_shareq.cpp) and its calls into
// cons_tres (cons_tres.cpp) are generated from it, so an entry point exists on both sides exactly
// when the release has it.
//
// SHAREQ_SELECT_OPS(X) calls X(member, symbol, return type, (parameters), (argument names)).
// select_p_job_test is the one entry point shareq hooks: its parameters are
// SHAREQ_SELECT_JOB_TEST_PARAMS and it is not in the table (select_shareq.cpp defines it).
#pragma once

#include "slurm_select.hpp"

// ---- Entry points every supported release has ------------------------------------------------
#define SHAREQ_SELECT_OPS_COMMON(X)                                                                \
  X(state_save, select_p_state_save, int, (char* dir_name), (dir_name))                            \
  X(state_restore, select_p_state_restore, int, (char* dir_name), (dir_name))                      \
  X(job_init, select_p_job_init, int, (list_t * job_list), (job_list))                             \
  X(node_init, select_p_node_init, int, (void), ())                                                \
  X(job_begin, select_p_job_begin, int, (job_record_t * job_ptr), (job_ptr))                       \
  X(job_ready, select_p_job_ready, int, (job_record_t * job_ptr), (job_ptr))                       \
  X(job_expand, select_p_job_expand, int,                                                          \
    (job_record_t * from_job_ptr, job_record_t * to_job_ptr), (from_job_ptr, to_job_ptr))          \
  X(job_resized, select_p_job_resized, int, (job_record_t * job_ptr, node_record_t * node_ptr),    \
    (job_ptr, node_ptr))                                                                           \
  X(job_fini, select_p_job_fini, int, (job_record_t * job_ptr), (job_ptr))                         \
  X(job_suspend, select_p_job_suspend, int, (job_record_t * job_ptr, bool indf_susp),              \
    (job_ptr, indf_susp))                                                                          \
  X(job_resume, select_p_job_resume, int, (job_record_t * job_ptr, bool indf_susp),                \
    (job_ptr, indf_susp))                                                                          \
  X(step_pick_nodes, select_p_step_pick_nodes, bitstr_t*,                                          \
    (job_record_t * job_ptr, select_jobinfo_t * step_jobinfo, uint32_t node_count,                 \
     bitstr_t * *avail_nodes),                                                                     \
    (job_ptr, step_jobinfo, node_count, avail_nodes))                                              \
  X(step_start, select_p_step_start, int, (step_record_t * step_ptr), (step_ptr))                  \
  X(step_finish, select_p_step_finish, int, (step_record_t * step_ptr, bool killing_step),         \
    (step_ptr, killing_step))                                                                      \
  X(nodeinfo_pack, select_p_select_nodeinfo_pack, int,                                             \
    (select_nodeinfo_t * nodeinfo, buf_t * buffer, uint16_t protocol_version),                     \
    (nodeinfo, buffer, protocol_version))                                                          \
  X(nodeinfo_unpack, select_p_select_nodeinfo_unpack, int,                                         \
    (select_nodeinfo_t * *nodeinfo, buf_t * buffer, uint16_t protocol_version),                    \
    (nodeinfo, buffer, protocol_version))                                                          \
  X(nodeinfo_alloc, select_p_select_nodeinfo_alloc, select_nodeinfo_t*, (void), ())                \
  X(nodeinfo_free, select_p_select_nodeinfo_free, int, (select_nodeinfo_t * nodeinfo), (nodeinfo)) \
  X(nodeinfo_set_all, select_p_select_nodeinfo_set_all, int, (void), ())                           \
  X(nodeinfo_set, select_p_select_nodeinfo_set, int, (job_record_t * job_ptr), (job_ptr))          \
  X(nodeinfo_get, select_p_select_nodeinfo_get, int,                                               \
    (select_nodeinfo_t * nodeinfo, enum select_nodedata_type dinfo, enum node_states state,        \
     void* data),                                                                                  \
    (nodeinfo, dinfo, state, data))                                                                \
  X(jobinfo_alloc, select_p_select_jobinfo_alloc, select_jobinfo_t*, (void), ())                   \
  X(jobinfo_free, select_p_select_jobinfo_free, int, (select_jobinfo_t * jobinfo), (jobinfo))      \
  X(jobinfo_set, select_p_select_jobinfo_set, int,                                                 \
    (select_jobinfo_t * jobinfo, enum select_jobdata_type data_type, void* data),                  \
    (jobinfo, data_type, data))                                                                    \
  X(jobinfo_get, select_p_select_jobinfo_get, int,                                                 \
    (select_jobinfo_t * jobinfo, enum select_jobdata_type data_type, void* data),                  \
    (jobinfo, data_type, data))                                                                    \
  X(jobinfo_copy, select_p_select_jobinfo_copy, select_jobinfo_t*, (select_jobinfo_t * jobinfo),   \
    (jobinfo))                                                                                     \
  X(jobinfo_pack, select_p_select_jobinfo_pack, int,                                               \
    (select_jobinfo_t * jobinfo, buf_t * buffer, uint16_t protocol_version),                       \
    (jobinfo, buffer, protocol_version))                                                           \
  X(jobinfo_unpack, select_p_select_jobinfo_unpack, int,                                           \
    (select_jobinfo_t * *jobinfo_pptr, buf_t * buffer, uint16_t protocol_version),                 \
    (jobinfo_pptr, buffer, protocol_version))                                                      \
  X(get_info_from_plugin, select_p_get_info_from_plugin, int,                                      \
    (enum select_plugindata_info dinfo, job_record_t * job_ptr, void* data),                       \
    (dinfo, job_ptr, data))                                                                        \
  X(reconfigure, select_p_reconfigure, int, (void), ())

// ---- Entry points 23.02 (job_signal, jobinfo_sprint/xstrdup, update_node_config) and 23.11
// (resv_test) removed ------------------------------------------------------------------------
#if SHAREQ_SLURM_SERIES(22, 5)
#define SHAREQ_SELECT_OPS_22_05(X)                                                                 \
  X(job_signal, select_p_job_signal, int, (job_record_t * job_ptr, int signal), (job_ptr, signal)) \
  X(jobinfo_sprint, select_p_select_jobinfo_sprint, char*,                                         \
    (select_jobinfo_t * jobinfo, char* buf, size_t size, int mode), (jobinfo, buf, size, mode))    \
  X(jobinfo_xstrdup, select_p_select_jobinfo_xstrdup, char*,                                       \
    (select_jobinfo_t * jobinfo, int mode), (jobinfo, mode))                                       \
  X(update_node_config, select_p_update_node_config, int, (int index), (index))                    \
  X(resv_test, select_p_resv_test, bitstr_t*,                                                      \
    (resv_desc_msg_t * resv_desc_ptr, uint32_t node_cnt, bitstr_t * avail_bitmap,                  \
     bitstr_t * *core_bitmap),                                                                     \
    (resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
#else
#define SHAREQ_SELECT_OPS_22_05(X)
#endif

#define SHAREQ_SELECT_OPS(X) SHAREQ_SELECT_OPS_COMMON(X) SHAREQ_SELECT_OPS_22_05(X)

// ---- select_p_job_test -------------------------------------------------------------------------
// Its last parameters: the cores reservations exclude (a core bitmap; a resv_exc_t from 23.11)
// and, from 24.11, what backfill's will-run test needs (will_run_data_t).
#if SHAREQ_SLURM_JOB_TEST_WILL_RUN_DATA
#define SHAREQ_SELECT_JOB_TEST_TAIL_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define SHAREQ_SELECT_JOB_TEST_TAIL_ARGS(a) (a).resv_exc_ptr, (a).will_run_ptr
#define SHAREQ_SELECT_JOB_TEST_TAIL_NAMES resv_exc_ptr, will_run_ptr
#elif SHAREQ_SLURM_JOB_TEST_RESV_EXC
#define SHAREQ_SELECT_JOB_TEST_TAIL_PARAMS resv_exc_t* resv_exc_ptr
#define SHAREQ_SELECT_JOB_TEST_TAIL_ARGS(a) (a).resv_exc_ptr
#define SHAREQ_SELECT_JOB_TEST_TAIL_NAMES resv_exc_ptr
#else
#define SHAREQ_SELECT_JOB_TEST_TAIL_PARAMS bitstr_t* exc_core_bitmap
#define SHAREQ_SELECT_JOB_TEST_TAIL_ARGS(a) (a).exc_core_bitmap
#define SHAREQ_SELECT_JOB_TEST_TAIL_NAMES exc_core_bitmap
#endif

#define SHAREQ_SELECT_JOB_TEST_PARAMS                                                              \
  (job_record_t * job_ptr, bitstr_t * node_bitmap, uint32_t min_nodes, uint32_t max_nodes,         \
   uint32_t req_nodes, uint16_t mode, list_t * preemptee_candidates, list_t * *preemptee_job_list, \
   SHAREQ_SELECT_JOB_TEST_TAIL_PARAMS)

namespace shareq::select {

// The operations table shareq fills from cons_tres (cons_tres.cpp), member per entry point.
struct SelectOps {
  uint32_t* plugin_id;
  int(*job_test) SHAREQ_SELECT_JOB_TEST_PARAMS;
// NOLINTNEXTLINE(bugprone-macro-parentheses): a declarator: name and parameter list as they are
#define SHAREQ_SELECT_OPS_MEMBER(member, symbol, ret, params, args) ret(*member) params;
  SHAREQ_SELECT_OPS(SHAREQ_SELECT_OPS_MEMBER)
#undef SHAREQ_SELECT_OPS_MEMBER
};

}  // namespace shareq::select
