// The controller's one WarmPoolRegistry (src/warm/registry.hpp), shared by select/shareq
// (placement, job begin and end) and priority/shareq (the periodic pass), persisted in
// StateSaveLocation/shareq_warm_pools (state_format.hpp, written atomically after every change,
// read at the first use: slurmctld restarts and `scontrol reconfigure` keep the pools).
//
// What it writes on Slurm's records:
//  - the job's spank_job_env at start: SHAREQ_WARM_NAME=warm-ORIGIN (the node-side warm
//    directory: the claimed pool's origin job, or this job when it asked for --keep-alive). The
//    node prolog receives it as SPANK_SHAREQ_WARM_NAME.
//  - the job's spank_job_env at start: SHAREQ_WARM_ENDED=warm-A,warm-B, the warm directories on
//    its nodes of pools that ended before their deadline (an admin, a node down, nodes taken in
//    prefer mode, the pool's job cancelled): the job's prolog removes them and unpins their
//    images then, rather than at the deadline. Kept in memory only: after a slurmctld restart
//    such directories go at their deadline, as the node sweeps by deadline anyway.
//  - the job's SystemComment: "shareq: warm start on wp-N (...)" at start, and "shareq: left
//    nodes warm as wp-N until ..." when it made or continued a pool (scontrol show job, sacct).
//  - each warm node's Extra (scontrol show node): "shareq:wp-N,STATUS,owner=USER/ACCOUNT,
//    until=ISO-TIME,key=..."; cleared when the pool ends. Refreshed by every periodic pass.
//
// What it reads: a node's Extra set to "shareq:end" by an admin (`shareq pools end wp-N`) ends
// the node's pool (Terminated, "ended by an admin") at the next periodic pass.
//
// WarmPoolMode=reserve: after every change, the waiting pools are published to slurm_jobs.hpp
// (set_reserved_pools), so that the Ledger counts their nodes as their owner's usage and
// priority/shareq accrues fair-share usage for them. A pool whose keep-alive ran out still counts
// until the next periodic pass ends it (at most one PriorityCalcPeriod, 5 s by default).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctld_api.hpp"
#include "slurm_jobs.hpp"
#include "warm/placement.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

// Whether any pool waits for a job (Available or Reused): when none does, placement needs no
// advice at all. One atomic load after the first call (which loads the state file); any lock
// state, but the first call takes the registry's mutex.
SHAREQ_CTLD_API bool warm_pools_waiting();

// The placement advice for a pending job among `candidates` (node names). Empty advice when the
// job matches nothing and no node is warm. Job lock held.
SHAREQ_CTLD_API warm::NodeAdvice warm_advice(struct job_record* job,
                                             const std::vector<std::string>& candidates,
                                             int64_t now);
// WarmPoolMode=reserve: the waiting pool that this pending job would claim (its key matches, not
// expired), as its holding; nullopt otherwise, and always in prefer mode. Job lock held.
SHAREQ_CTLD_API std::optional<ReservedPool> warm_reserved_claim(struct job_record* job,
                                                                int64_t now);
// The job was allocated its nodes (select_p_job_begin; job and node write locks held): claims
// the matching pool, or ends the waiting pools whose nodes it takes.
SHAREQ_CTLD_API void warm_job_started(struct job_record* job, int64_t now);
// The job's allocation ended (select_p_job_fini; job write lock held): makes, continues or
// ends its pool according to how it ended.
SHAREQ_CTLD_API void warm_job_ended(struct job_record* job, int64_t now);
// Ends these pools (Terminated, with `reason`) now: a job within its share's quota reclaims
// their nodes (policy/warm_reclaim.hpp). Job write lock held.
SHAREQ_CTLD_API void warm_end_pools(const std::vector<uint64_t>& ids, const std::string& reason,
                                    int64_t now);
// The periodic pass (node write lock held): expires pools, ends those of down nodes, refreshes
// the nodes' Extra.
SHAREQ_CTLD_API void warm_periodic(int64_t now);
// Forgets the in-memory registry, as a slurmctld restart does: the next call reads the state
// file again. (The registry is saved after every change, so nothing is lost.)
SHAREQ_CTLD_API void warm_unload();

}  // namespace shareq::ctld
