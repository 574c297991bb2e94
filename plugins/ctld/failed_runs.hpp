// Runs that ended by a node or prolog failure (policy/failed_runs.hpp), from the moment a run
// ends (select/shareq's job_fini) to the ranking pass that finds the job pending again
// (priority/shareq), where the failure is settled on the job:
//  - run_ended (job_fini: job and node write locks): a run that ended JOB_NODE_FAIL, or by a
//    requeue, is remembered with its nodes and start (any other end forgets the job's last);
//  - settle_failed_runs (once per ranking pass, before it ranks: job write, node read locks):
//    for each remembered run whose job is pending, once the failure is known (a prolog failure
//    only once Slurm has drained the node, which comes after the requeue), the job gets the
//    AdminComment word, its failed nodes join its excluded nodes (policy::nodes_to_exclude), its
//    SystemComment says what happened, and it is held when it failed more than
//    MaxFallbackRequeues times. A run whose failure is still unknown
//    policy::kFailureKnownWithin seconds after it ended was none and is forgotten.
// What is remembered is in memory: a restart of slurmctld in the seconds between a failure and
// the next pass forgets it, and the job runs again as after any requeue (FallbackDelay).
#pragma once

#include <cstdint>

#include "config_holder.hpp"
#include "ctld_api.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

using JobRecord = struct job_record;

SHAREQ_CTLD_API void run_ended(JobRecord* job, int64_t now);
SHAREQ_CTLD_API void settle_failed_runs(const LoadedConfig& config, int64_t now);

}  // namespace shareq::ctld
