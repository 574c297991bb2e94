// select_p_job_test goes through here: shareq's placement policy in front of cons_tres.
//
// For a job in a family (its current partition, job_ptr->part_ptr, belongs to one):
//  - SELECT_MODE_TEST_ONLY ("could it ever run?", at submission and for the runnable check):
//    refused only when it never can (larger than the family, no quota there); else cons_tres.
//  - SELECT_MODE_RUN_NOW (main scheduler, and backfill when it starts a job) and
//    SELECT_MODE_WILL_RUN (backfill's planning): policy::decide() (src/policy/decision.hpp)
//    decides over one snapshot, and this hook only acts on its Decision: on_pool tries the
//    reserved pool's nodes; Start goes to cons_tres with no preemption candidates (then, when no
//    node has room, reclaim_to_fit's candidates in order, or the no_room reason); Preempt gives
//    cons_tres exactly the victims, in order; Wait refuses with the decision's words. Warm pools
//    in end_pools are ended only in RUN_NOW. So neither scheduler can start a job that breaks a
//    family's capacity or a borrow limit.
//  - A job that starts now without preemption on one node is offered the GPU best-fit nodes
//    first (gpu_packing.hpp), then every node.
//  - A refused job's squeue reason is describe()'s words (state_desc). Its state_reason is
//    SHAREQ_SLURM_SELECT_REASON (slurm_compat.h): in 22.05 WAIT_BLOCK_D_ACTION, for which (and
//    WAIT_BLOCK_MAX_ERR) select_nodes() keeps a select plugin's state_desc; for any other it
//    resets the reason to Resources and drops the words, as 24.11 does for every reason: there
//    the words are also kept in wait_reasons.hpp, and priority/shareq's ranking pass puts them
//    back. Once the job passes admit() again the reason is cleared (and the kept words
//    forgotten).
//  - Victims that cons_tres picks in RUN_NOW get SystemComment "shareq: preempted by job N
//    (reclaim|in-share): ..." (scontrol show job), and the preemption is logged.
// Jobs outside every family go to cons_tres unchanged.
#pragma once

#include "select_ops.h"

namespace shareq::select {

// The arguments of select_p_job_test, as Slurm passes them (see select_g_job_test()).
struct JobTestArgs {
  job_record_t* job_ptr;
  bitstr_t* node_bitmap;
  uint32_t min_nodes;
  uint32_t max_nodes;
  uint32_t req_nodes;
  uint16_t mode;  // SELECT_MODE_RUN_NOW / TEST_ONLY / WILL_RUN
  list_t* preemptee_candidates;
  list_t** preemptee_job_list;
  // Passed to cons_tres unchanged (select_ops.h: SHAREQ_SELECT_JOB_TEST_TAIL_PARAMS).
#if SHAREQ_SLURM_JOB_TEST_RESV_EXC
  resv_exc_t* resv_exc_ptr;
#else
  bitstr_t* exc_core_bitmap;
#endif
#if SHAREQ_SLURM_JOB_TEST_WILL_RUN_DATA
  will_run_data_t* will_run_ptr;
#endif
  time_t now;  // read once per call: every rule of one decision sees the same instant
};

// Called by slurmctld with the job write lock and node/partition locks held (scheduler, backfill
// or job submission). Returns what cons_tres returns (SLURM_SUCCESS or an error), or SLURM_ERROR
// for a shareq refusal. Runs on the scheduling path: must return quickly. May throw; the caller
// guards.
int job_test(const JobTestArgs& args);

// select_p_job_begin, after warm pools (their SystemComment is set first): a job that starts in
// a fallback family gets "shareq: fell back from p5 to p4 after N s: ..." appended to its
// SystemComment, "shareq-fallback:saturated,from:p5,at:START" to its AdminComment (slurmdbd
// keeps it with the run; shareq-exporter counts it), and a log line. Job write lock held. May
// throw; the caller guards.
void job_started(job_record_t* job, time_t now);

}  // namespace shareq::select
