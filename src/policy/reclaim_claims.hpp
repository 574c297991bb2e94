// Reclaims in flight: a job that picked its victims waits for them to end before it starts.
//
// Slurm preempts a job's victims and tries the job again in a later pass, after they have ended
// (with PreemptGraceTime, seconds later). Until then the running jobs still show the victims and
// not the job, so a second job of the same share deciding in between would see the share's quota
// as free and reclaim it again, and a third would pick the same victims again: more preempted than
// needed. So the decisions in between see the world as it will be: every claim's victims gone and
// every claimant running with what it asked for.
#pragma once

#include <span>
#include <vector>

#include "policy/jobs.hpp"

namespace shareq::policy {

struct ReclaimClaim {
  JobId job = 0;  // the pending job that preempted
  ShareId share = 0;
  FamilyId family = 0;
  int64_t amount = 0;
  int priority = 0;
  Time since = 0;              // when it picked its victims
  std::vector<JobId> victims;  // what it preempted
  bool operator==(const ReclaimClaim&) const = default;
};

// How long a claim lasts after its victims were signalled: the time they can take to end,
// PreemptGraceTime (below 0 counts as 0) plus the job-end allowance (held_capacity.hpp's
// job_end_allowance_s). Past it the claimant is decided afresh, in slurmctld and in the tool.
constexpr Time claim_lifetime_s(Time preempt_grace_time_s, Time job_end_allowance_s) {
  return (preempt_grace_time_s > 0 ? preempt_grace_time_s : 0) + job_end_allowance_s;
}

// `running` with every claim's victims removed and every claimant added (start_time = since),
// sorted by job id. A claimant that already appears in `running` (it started) is kept once, as it
// runs. Does not modify its inputs.
std::vector<RunningJob> with_claims(std::span<const RunningJob> running,
                                    std::span<const ReclaimClaim> claims);

}  // namespace shareq::policy
