// The nodes of jobs that ended lately, for the decision's pause before a reclaim for placement
// (policy/decision.hpp, rule 5). An ended job no longer counts in any share's usage, but Slurm
// gives its node out only once the job's processes are gone (COMPLETING: up to KillWait, or an
// epilog). Such a node is worth waiting for while its job can still be ending normally: for
// KillWait + 2 x MessageTimeout + 10 s after the end, as long as a reclaim waits for victims that
// end without a grace period (reclaim_claims.hpp). A node stuck COMPLETING longer (a hung epilog,
// an unkillable process) holds nothing back. slurmctld only; thread-safe. The list of ends is
// ControllerState::recent_ends (controller_state.hpp).
#pragma once

#include <ctime>
#include <vector>

#include "policy/decision.hpp"

#include "slurm_select.hpp"

namespace shareq::select {

// select_p_job_fini: the job's nodes start COMPLETING.
void job_ended(const job_record_t* job, time_t now);

// The nodes of `partition` (in `family`) still COMPLETING a job that ended within that time
// (policy::decide waits for them up to ctld::job_end_allowance_s() after the end).
std::vector<policy::CompletingNode> completing_nodes(const part_record_t* partition,
                                                     policy::FamilyId family, time_t now);

}  // namespace shareq::select
