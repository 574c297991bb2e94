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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_state.hpp"
#include "result.hpp"

namespace shareq::tool {

// What shareq why's JOBID names: a job ("5"), or one task of a job array ("5_1", as squeue and
// sacct show it), which slurmctld knows by a job id of its own.
struct JobOperand {
  uint32_t job_id = 0;                 // the job, or the array's job id
  std::optional<uint32_t> array_task;  // set for JOBID_TASK
  bool operator==(const JobOperand&) const = default;
};

// Parses JOBID: "5" (1..4294967295) or "5_1" (task 0..4294967293). The Error (field "JOBID")
// names what else it is: a job step ("5.batch is a job step; shareq why takes a job id, e.g. 5"),
// several array tasks ("5_[1-3]"), a heterogeneous job component ("5+1"), or no job id at all.
Result<JobOperand> parse_job_operand(std::string_view text);

// One record slurmctld holds for a job array (slurm_load_job of the array's job id): a task that
// has a job id of its own (task set), or the record of its still pending tasks (task unset,
// `pending_tasks` as squeue shows them: "2-4,7", "1-9:2%4").
struct ArrayRecord {
  uint32_t job_id = 0;
  uint32_t array_job_id = 0;     // 0: not an array job
  std::optional<uint32_t> task;  // the task's index
  std::string pending_tasks;     // for the record of pending tasks
};

// The job id shareq why explains for task `task` of array `array_job_id`, from its records: the
// task's own job id, or the record holding the still pending tasks (Slurm gives a task its own
// job id only when it starts or is split off), with `note` saying so. The Error says the job is
// unknown, no array, or has no such task.
struct ArrayTaskJob {
  uint32_t job_id = 0;
  std::string note;  // "" or one line
};
Result<ArrayTaskJob> resolve_array_task(const std::vector<ArrayRecord>& records,
                                        uint32_t array_job_id, uint32_t task);

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
