// priority/shareq's periodic pass, and the thread that runs it.
//
// Every period (policy::recalc_period_s: slurm.conf's PriorityCalcPeriod when it is 1..5 s, else
// 5 s; the default PriorityCalcPeriod of 5 minutes is far too slow for borrow/reclaim decisions),
// and at once after priority_p_reconfig, the thread:
//   1. takes slurmctld's job write lock (and node and partition read locks), like multifactor's
//      decay thread;
//   2. accrues the core's decayed usage per (share, family) from the running jobs and the warm
//      pools reserved for a share (WarmPoolMode=reserve; PriorityDecayHalfLife), and the
//      associations' usage for sshare (assoc_usage.hpp);
//   3. gives every pending job its priority from policy::prioritize and stores the factors in
//      job_ptr->prio_factors for sprio (held jobs, priority 0, and admin-set priorities are left
//      alone), and puts job_list in that order (job_list_order.hpp);
//   4. releases the lock and writes the usage to StateSaveLocation/shareq_usage (atomically).
// Between passes, after every job start or end (libshareq_ctld's jobs-changed listener), the same
// thread repeats step 3 alone under the same locks: Slurm schedules as soon as a job's epilog
// completes, and must find the tiers the end changed. Re-rankings are coalesced and take at most
// a tenth of the time (each waits nine times as long as the last one took).
#pragma once

#include <cstdint>

extern "C" {
struct job_record;
}

namespace shareq::priority {

// The priority of one job (priority_p_set). Precondition: the job lock is held.
uint32_t priority_of(struct job_record* job);

// Loads the state file and starts the thread (slurmctld only). Returns false when the thread
// could not start.
bool start_recalc();
// Stops the thread (joins it) and writes the state file. Safe when never started.
void stop_recalc();
// Asks for a pass now (reconfigure).
void wake_recalc();

// When usage was last accrued (0 before the first pass): job_end accrues a job's tail from here.
int64_t last_accrual();

}  // namespace shareq::priority
