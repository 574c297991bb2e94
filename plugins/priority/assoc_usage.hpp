// Slurm's association usage, kept the way priority/multifactor keeps it (classic fair share, not
// Fair Tree), so that `sshare` shows real RawUsage, EffectvUsage and FairShare for each share:
// usage_raw grows by billable TRES x seconds of running jobs on the job's association and every
// parent up to root, decays with PriorityDecayHalfLife, and usage_efctv / FairShare follow
// multifactor's formulas. shareq's own decisions use the core's decayed usage (UsageStore), not
// these numbers.
#pragma once

#include <cstdint>
#include <span>

#include "slurm_jobs.hpp"

extern "C" {
struct job_record;
struct slurmdb_assoc_rec;
}

namespace shareq::priority {

// Decays every association and QOS from `last_ran` to `now`, adds what running jobs used since
// then, and recomputes effective usage below root. A reserved warm pool (`reserved`) accrues on
// its owner's association (user and account, the partition's association first) like a job
// holding its whole nodes: each node's billing TRES (its CPUs without TRESBillingWeights) and
// every TRES of the node, from max(last_ran, since) to now.
// Locks: the caller holds slurmctld's job lock (read or write) and node read lock; takes
// assoc_mgr's assoc and QOS write locks and TRES read lock itself (slurmctld locks before
// assoc_mgr locks, as locks.h asks).
void accrue_associations(int64_t last_ran, int64_t now, int64_t half_life_s,
                         std::span<const ctld::ReservedPool> reserved = {});

// The tail of a job that ended since the last accrual, from max(last_ran, start) to its end.
// Locks: as accrue_associations.
void accrue_job_tail(struct job_record* job, int64_t last_ran);

// multifactor's classic fair share, for priority_p_set_assoc_usage / priority_p_calc_fs_factor.
// The caller holds the assoc_mgr assoc lock (assoc_mgr calls it so).
void set_assoc_usage(struct slurmdb_assoc_rec* assoc);
double fs_factor(long double usage_efctv, long double shares_norm);

// priority/basic's bookkeeping at job end: removes the job's remaining TRES run seconds from its
// QOS and associations (acct_policy added time_limit x TRES at start; nothing decremented since).
void release_run_seconds(struct job_record* job);

}  // namespace shareq::priority
