// shareq's wait words (squeue's reason) of refused jobs, kept where the release drops them.
//
// select/shareq writes a refused job's words into its state_desc (job_test_hook.cpp). 22.05's
// select_nodes() keeps them (SHAREQ_SLURM_SELECT_REASON_KEPT); 24.11's replaces every reason
// after a refusal with Resources and frees state_desc, and its main scheduler does the same with
// Priority for the jobs behind one refused in the same partition. There the shim also keeps the
// words here (keep_wait_reason), and the ranking pass of priority/shareq, which runs right after
// a scheduling pass that refused a job (select/shareq asks for it) and every PriorityCalcPeriod,
// puts them back on each pending job whose reason Slurm reset (restore_wait_reason). A job that
// shareq lets through is forgotten (forget_wait_reason), and so is one that is no longer
// pending (wait_reasons_keep_pending).
//
// All calls run with slurmctld's job write lock held; the part's own mutex is a leaf
// (lock_order.hpp: WaitReasons).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ctld_api.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

using JobRecord = struct job_record;

// Keeps `words` for the job. True when they differ from the words kept for it before (none
// counts as different).
SHAREQ_CTLD_API bool keep_wait_reason(uint32_t job_id, const std::string& words);
// Forgets the job's words. True when some were kept.
SHAREQ_CTLD_API bool forget_wait_reason(uint32_t job_id);
// Puts the kept words back on a pending job whose reason Slurm reset (Resources, Priority or
// none, with no words of its own). True when it changed the job. Not a change of the job table
// for Slurm's purposes (last_job_update): select_nodes() resets the words without one, and these
// are the words the job had. (A client that caches by update time, `squeue -i`, may show the
// reset reason until the next change.)
SHAREQ_CTLD_API bool restore_wait_reason(JobRecord* job);
// Forgets every job not in `pending`.
SHAREQ_CTLD_API void wait_reasons_keep_pending(std::vector<uint32_t> pending);

}  // namespace shareq::ctld
