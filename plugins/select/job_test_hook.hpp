// select_p_job_test goes through here: where shareq's placement policy (family capacity, borrow
// limits, warm-node preference) will sit in front of cons_tres. For now it only delegates.
#pragma once

#include "slurm_select.hpp"

namespace shareq::select {

// The arguments of select_p_job_test, as Slurm passes them (see select_g_job_test()).
struct JobTestArgs {
  job_record_t* job_ptr;
  bitstr_t* node_bitmap;
  uint32_t min_nodes;
  uint32_t max_nodes;
  uint32_t req_nodes;
  uint16_t mode;  // SELECT_MODE_RUN_NOW / TEST_ONLY / WILL_RUN
  List preemptee_candidates;
  List* preemptee_job_list;
  bitstr_t* exc_core_bitmap;
};

// Called by slurmctld with the job write lock and node/partition locks held (scheduler, backfill
// or job submission). Returns what cons_tres returns (SLURM_SUCCESS or an error), or the shareq
// refusal. Runs on the scheduling path: must return quickly. May throw; the caller guards.
int job_test(const JobTestArgs& args);

}  // namespace shareq::select
