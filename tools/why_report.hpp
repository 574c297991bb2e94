// shareq why JOBID: a job's situation in words, computed with the policy core from the same data
// as shareq status (so it says what the plugins decide):
//  - pending: its share and priority; per family it may run in, whether it is within quota or
//    would borrow, what it waits for (admit, and pick_victims for what a preemption would take),
//    and its place among the pending jobs of that family (by Slurm's priority, which
//    priority/shareq sets; ties by job id, as Slurm breaks them);
//  - running: where it runs, whether its share borrows and so whether it can be reclaimed;
//  - both: squeue's reason and the SystemComment (warm start, preemption).
#pragma once

#include <cstdint>
#include <string>

#include "cluster_state.hpp"

namespace shareq::tool {

// The explanation, several lines; `now` is the current time (seconds since the epoch).
// Precondition: state.job(job_id) != nullptr.
std::string explain_job(const ClusterState& state, uint32_t job_id, int64_t now);

// What a pending job of `share` asking `amount` in `family` waits for, in one sentence, e.g.
// "family p5 is at capacity: 32/32 GPUs; share research holds 10 of its quota 10; 4 GPUs would
// be borrowed, BorrowLimit 16". `job` is the pending job (for pick_victims).
std::string wait_sentence(const ClusterState& state, const policy::PendingJob& job,
                          policy::FamilyId family, int64_t amount, int64_t now);

// "1st", "2nd", "3rd", "4th", "11th", "21st".
std::string ordinal(int n);

}  // namespace shareq::tool
