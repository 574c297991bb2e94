/*
 * The one per-release layer between shareq's shims and Slurm's internal headers (C and C++).
 *
 * shareq builds against one exact Slurm (its configured source tree, SLURM_SRC_DIR) from the
 * series it supports: 22.05 (Debian 12), 24.11 (Debian 13) and 26.05 (Debian unstable). The shims
 * are written once, against the names of the newest series; this header maps the older series'
 * names onto them and says which interface the release has (SHAREQ_SLURM_* feature macros), so a
 * shim that differs between releases tests a feature, never a version number of its own.
 *
 * Include it in place of config.h, before any other Slurm header (after slurm_xlator.h only, which
 * must come first where it is used): it includes config.h and slurm/slurm.h, and the Slurm
 * headers whose fields are named after C++ keywords (see below) must come through here.
 */
#ifndef SHAREQ_SLURM_COMPAT_H
#define SHAREQ_SLURM_COMPAT_H

#include "config.h"

/* The public API's layer, and SHAREQ_SLURM_AT_LEAST / SHAREQ_SLURM_SERIES. */
#include "slurm_api_compat.h"

/* ---- Interface features, by the release that introduced them (SchedMD's tags) ------------- */

/* List/ListIterator became list_t/list_itr_t (the pointer typedefs are gone by 24.05). */
#define SHAREQ_SLURM_HAS_LIST_T SHAREQ_SLURM_AT_LEAST(23, 2)
/* select_p_job_test takes a resv_exc_t (23.11) and a will_run_data_t (24.11). */
#define SHAREQ_SLURM_JOB_TEST_RESV_EXC SHAREQ_SLURM_AT_LEAST(23, 11)
#define SHAREQ_SLURM_JOB_TEST_WILL_RUN_DATA SHAREQ_SLURM_AT_LEAST(24, 11)
/* job_modify gains char **err_msg (23.02). */
#define SHAREQ_SLURM_JOB_MODIFY_ERR_MSG SHAREQ_SLURM_AT_LEAST(23, 2)
/* priority plugins must export priority_p_recover (23.02) and priority_p_thread_start (24.05). */
#define SHAREQ_SLURM_PRIORITY_RECOVER SHAREQ_SLURM_AT_LEAST(23, 2)
#define SHAREQ_SLURM_PRIORITY_THREAD_START SHAREQ_SLURM_AT_LEAST(24, 5)
/* priority_p_calc_fs_factor is gone from the interface in 25.11 (Debian's 26.05.5 plugins). */
#define SHAREQ_SLURM_PRIORITY_CALC_FS_FACTOR (!SHAREQ_SLURM_AT_LEAST(25, 11))
/* The sprio row (priority_factors_object_t) holds its factors in a priority_factors_t of their
 * own (job_record_t.prio_factors), owns its strings, and sprio filters the rows itself; the
 * controller calls priority_p_get_priority_factors_list(uid) with the job, node and partition read
 * locks and the assoc_mgr QOS read lock held. One struct in 22.05, split in 24.11 (23.11). */
#define SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT SHAREQ_SLURM_AT_LEAST(23, 11)
/* The state_reason with which select_nodes() keeps a select plugin's state_desc (squeue's reason
 * words). 22.05: WAIT_BLOCK_D_ACTION (a BlueGene leftover). 24.11 removed the BlueGene reasons and
 * keeps no plugin's words: select_nodes() sets Resources and frees state_desc after a refusal, so
 * shareq keeps them itself there and puts them back (plugins/ctld/wait_reasons.hpp). */
#if SHAREQ_SLURM_SERIES(22, 5)
#define SHAREQ_SLURM_SELECT_REASON WAIT_BLOCK_D_ACTION
#define SHAREQ_SLURM_SELECT_REASON_KEPT 1
#else
#define SHAREQ_SLURM_SELECT_REASON WAIT_RESOURCES
#define SHAREQ_SLURM_SELECT_REASON_KEPT 0
#endif
/* A job's per-partition priorities (read by build_job_queue()): job_ptr->priority_array, one per
 * partition, in 22.05; job_ptr->part_prio (priority_mult_t: priority_array, sized partitions x
 * QOS of the job's qos_list, with priority_array_names and last_update) in 24.11 (24.05 moved it
 * there; 24.11.7 and 25.05.3 rename priority_array to prio_mult). */
#define SHAREQ_SLURM_PART_PRIO_BY_QOS SHAREQ_SLURM_AT_LEAST(24, 11)
/* slurmctld loads only SelectType, whose id must be cons_tres's 109 (25.05). */
#define SHAREQ_SLURM_SELECT_ONLY_ONE SHAREQ_SLURM_AT_LEAST(25, 5)

/* ---- Slurm headers that C++ cannot read as they are ---------------------------------------- */

#if defined(__cplusplus) && __has_include("src/common/extra_constraints.h")
/* elem_t has a field named `operator` (24.05+), pulled in by slurmctld.h. The field is renamed
 * for C++ only; the layout is unchanged and shareq never touches it. Everything it includes is
 * included first, so that no other header sees the macro. */
extern "C" {
#include "src/common/data.h"
}
#define operator shareq_slurm_operator_field
extern "C" {
#include "src/common/extra_constraints.h"
}
#undef operator
#endif

/* ---- Older series' names for the newest ones ----------------------------------------------- */
/* NOLINTBEGIN(modernize-use-using): a C header. */

#if !SHAREQ_SLURM_HAS_LIST_T
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif
#if !SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
/* The factors of a job's priority: the whole sprio row before the split. */
typedef priority_factors_object_t priority_factors_t;
#endif
/* assoc_mgr_is_user_acct_coord() says whether the caller holds the assoc_mgr locks (24.11). */
#if SHAREQ_SLURM_SERIES(22, 5)
#define shareq_is_user_acct_coord(db_conn, uid, acct) \
  assoc_mgr_is_user_acct_coord((db_conn), (uid), (acct))
#else
#define shareq_is_user_acct_coord(db_conn, uid, acct) \
  assoc_mgr_is_user_acct_coord((db_conn), (uid), (acct), false)
#endif
#if !SHAREQ_SLURM_AT_LEAST(24, 5)
/* struct job_details had no typedef before job_record.h moved to src/common (24.05), where it
 * became an anonymous struct with only the typedef. */
typedef struct job_details job_details_t;
#endif
/* NOLINTEND(modernize-use-using) */

#endif /* SHAREQ_SLURM_COMPAT_H */
