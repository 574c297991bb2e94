// The one translation of a Slurm job into the policy's types. Both record sources fill a
// JobRecord: slurmctld's job_record_t in the plugins (ctld/slurm_jobs.cpp) and libslurm's
// slurm_job_info_t in the tool (tools/slurm_client.cpp); everything after that is this file:
//   share    = the share= of job_submit/shareq's tag (--share, or the share the job's account
//              or an account above it belongs to, or the unlisted accounts' share), else the
//              job's account, any case (a job submitted before shareq), else the unlisted
//              accounts' share where the policy has one;
//   family   = each partition's family (running: the partition it runs in; pending: its
//              partitions in order, each family once), partitions in no family are skipped;
//   amount   = nodes in a node family, GPUs (gres/gpu) in a GPU family;
//   priority = the priority= of job_submit/shareq's tag, the first word of the AdminComment
//              (a user cannot change a job's AdminComment), else DefaultPriority;
//   nice     = Slurm's nice value (the record's offset already taken off);
//   fallback = the tag's home= family; the job's requests in other families open FallbackDelay
//              after its eligible time, or at once after a failed run (fallback.hpp,
//              failed_runs.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/failed_runs.hpp"
#include "policy/jobs.hpp"
#include "policy/policy.hpp"
#include "submission.hpp"

namespace shareq::policy {

// What shareq reads of a job, whatever the source.
struct JobRecord {
  JobId id = 0;
  std::string account;
  std::vector<std::string> partitions;  // running: the one it runs in; pending: in order
  int64_t nodes = 0;                    // running: allocated; pending: requested (at least 1)
  int64_t gpus = 0;                     // gres/gpu: allocated (running) or requested (pending)
  std::string admin_comment;            // job_submit/shareq's tag first
  Time submit_time = 0;
  Time start_time = 0;
  int64_t nice = 0;  // without Slurm's NICE_OFFSET
  // Pending: when it last became eligible (Slurm's begin time; 0: not known, the submit time
  // counts), and Slurm's restart count (with the AdminComment: whether the run before this one
  // failed, failed_runs.hpp).
  Time eligible_time = 0;
  int64_t restarts = 0;
};

// job_submit/shareq's tag: the first word of an AdminComment (later words are warm-pool notes);
// nullopt when there is none or it does not decode.
std::optional<Submission> submission_tag(std::string_view admin_comment);

// The job's --share-priority as submitted: the tag's, else the policy's DefaultPriority.
int submitted_priority(const Policy& policy, std::string_view admin_comment);

// The job's share (rules above); nullopt when it has none in the policy.
std::optional<ShareId> share_of(const Policy& policy, const JobRecord& job);

// The job as a running job; nullopt when shareq does not govern it (no share of that name, its
// partition in no family).
std::optional<RunningJob> as_running(const Policy& policy, const JobRecord& job);
// The job as a pending job at `now` (its fallback requests open or not); nullopt when its share
// is unknown or no partition is in a family.
std::optional<PendingJob> as_pending(const Policy& policy, const JobRecord& job, Time now);
// The same with the failed run before the job's current run already decoded by the caller
// (failure_before(job.admin_comment, job.restarts)), so that a caller which needs it too decodes
// the AdminComment once.
std::optional<PendingJob> as_pending(const Policy& policy, const JobRecord& job, Time now,
                                     const std::optional<FailedRun>& failed_before);

}  // namespace shareq::policy
