// The controller's reclaims in flight (src/policy/reclaim_claims.hpp says why they exist).
//
// select/shareq records a claim when a job's victims are handed to Slurm to preempt, and ends it
// when the job starts (select_p_job_begin). A claim that outlives the time its victims can take
// to end (PreemptGraceTime + KillWait + 2 x MessageTimeout + 10 s) is dropped: the job is then
// decided afresh, as is one that was held meanwhile. A claimant that is no longer pending
// (cancelled) loses its claim at the next pass of priority/shareq (claims_keep_pending).
//
// Claims are kept by share and family name (a reconfiguration may renumber them) and saved in
// StateSaveLocation/shareq_reclaim_claims at every change, so that a slurmctld restart while
// victims are still ending (a grace period, an epilog) does not let the claimant, or another job
// of its share, pick more victims for the same capacity. A claim whose share or family the
// configuration no longer has is ignored.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config_state.hpp"
#include "ctld_api.hpp"
#include "policy/reclaim_claims.hpp"
#include "slurm_jobs.hpp"

namespace shareq::ctld {

// The job preempted its victims and waits for them to end. `policy` is the one whose ids `claim`
// uses.
SHAREQ_CTLD_API void claim_recorded(const policy::Policy& policy,
                                    const policy::ReclaimClaim& claim);
// The job started (or is gone): its claim ends.
SHAREQ_CTLD_API void claim_ended(uint32_t job_id);
// Drops the claims of jobs that are no longer pending (`pending`: every pending job's id, any
// order), such as a claimant cancelled while its victims end: it no longer counts as running.
// priority/shareq calls it from every pass over the pending jobs (job write lock held).
SHAREQ_CTLD_API void claims_keep_pending(std::vector<uint32_t> pending);
// Whether the job waits for victims it preempted (a live claim).
SHAREQ_CTLD_API bool reclaim_in_flight(uint32_t job_id, int64_t now);
// Whether a victim of the job's claim still holds its allocation (job_holds_allocation): in
// PreemptGraceTime, or listed as RUNNING again after a slurmctld crash lost its preemption (the
// claim, saved at once, outlived Slurm's own state). false without a claim.
SHAREQ_CTLD_API bool claim_victims_running(uint32_t job_id);
// Forgets the claims in memory, as a slurmctld restart does: the next call reads the state file
// again (what was queued for it is written first).
SHAREQ_CTLD_API void claims_unload();
// Changes with every claim recorded, ended or expired (expiry is seen at the next call of
// reclaim_in_flight or decision_snapshot): for caches of what claims decide.
SHAREQ_CTLD_API uint64_t claims_version();

// running_snapshot(config) as decisions must see it: with every live claim applied (its victims
// gone, its job running). The running snapshot itself when no claim is live. Cached; thread-safe;
// reads only shareq's own registries (never job_list).
SHAREQ_CTLD_API std::shared_ptr<const RunningSnapshot> decision_snapshot(
    const std::shared_ptr<const LoadedConfig>& config, int64_t now);

}  // namespace shareq::ctld
