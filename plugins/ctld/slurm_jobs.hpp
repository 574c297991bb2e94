// Slurm job records -> policy core types, and the running jobs' Ledger shared by every
// controller plugin.
//
// The running jobs are not read from job_list at decision time: preempt_p_preemptable() runs
// inside list_for_each(job_list), which holds job_list's lock, and a nested iterator aborts
// slurmctld ("Resource deadlock avoided"). Instead select/shareq keeps a registry of running
// allocations, told at every point cons_tres learns of a change: select_p_job_begin and
// nodeinfo_set (started), job_resized / job_expand / job_resume (changed), job_fini (ended), and
// select_p_job_init (the whole job_list, at startup and reconfigure). Each change bumps a
// generation counter; the snapshot (RunningJob list + Ledger) is rebuilt from the registry only
// when the generation or shareq.conf changed. last_job_update is not used: its one-second
// resolution misses changes within a second.
//
// Warm pools that wait under WarmPoolMode=reserve hold their nodes for their owner's share:
// warm_pools.cpp publishes them here (set_reserved_pools) after every change of the warm-pool
// registry, and the snapshot adds them to the Ledger as HeldCapacity (policy/jobs.hpp), never to
// the running list, so they count as usage but are never preemption victims.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config_state.hpp"
#include "ctld_api.hpp"
#include "policy/job_record.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "policy/victims.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

using JobRecord = struct job_record;

// A job record as policy/job_record.hpp reads it (the one translation): as a running job (the
// partition it runs in, allocated nodes and GPUs) or a pending one (its partitions in order,
// requested nodes and GPUs). Job lock held.
SHAREQ_CTLD_API policy::JobRecord running_record(JobRecord* job);
SHAREQ_CTLD_API policy::JobRecord pending_record(JobRecord* job);

// The pending job as the policy sees it at `now`; nullopt when shareq does not govern it.
SHAREQ_CTLD_API std::optional<policy::PendingJob> pending_job(const LoadedConfig& config,
                                                              JobRecord* job, time_t now);

// A warm pool whose nodes wait for a matching job under WarmPoolMode=reserve, as plain values.
struct ReservedPool {
  uint64_t pool = 0;
  std::string account;  // its owner's share (account), lower-case
  uint32_t uid = 0;     // its owner (the association whose fair-share usage it accrues)
  std::string partition;
  std::vector<std::string> nodes;  // sorted
  uint64_t gpus = 0;               // the nodes' configured GPUs together
  int64_t since = 0;               // when it began to wait (as far as this slurmctld knows)
  bool operator==(const ReservedPool&) const = default;
};

// The capacity `pool` holds in the policy's terms (its partition's family, nodes or GPUs);
// nullopt when its account is no share or its partition in no family.
SHAREQ_CTLD_API std::optional<policy::HeldCapacity> held_capacity(const policy::Policy& policy,
                                                                  const ReservedPool& pool);

// Running (and suspended) jobs that shareq governs, and reserved warm pools, with their Ledger.
class SHAREQ_CTLD_API RunningSnapshot {
 public:
  RunningSnapshot(std::shared_ptr<const LoadedConfig> config,
                  std::vector<policy::RunningJob> running, uint64_t generation,
                  std::vector<ReservedPool> reserved = {});

  [[nodiscard]] const LoadedConfig& config() const { return *config_; }
  [[nodiscard]] const policy::Policy& policy() const { return config_->policy; }
  [[nodiscard]] const std::vector<policy::RunningJob>& running() const { return running_; }
  // Running jobs plus held capacity.
  [[nodiscard]] const policy::Ledger& ledger() const { return ledger_; }
  // The reserved warm pools, and what each holds in the policy (those it governs).
  [[nodiscard]] const std::vector<ReservedPool>& reserved() const { return reserved_; }
  [[nodiscard]] const std::vector<policy::HeldCapacity>& held() const { return held_; }
  [[nodiscard]] uint64_t generation() const { return generation_; }
  // Which running jobs could ever be preempted (policy::preemption_exposure), worked out once.
  [[nodiscard]] const policy::PreemptionExposure& exposure() const { return exposure_; }
  // The running job with this id, or nullptr.
  [[nodiscard]] const policy::RunningJob* find(policy::JobId id) const;
  // The same configuration and reserved pools with other running jobs (sorted by id).
  [[nodiscard]] std::shared_ptr<const RunningSnapshot> with_running(
      std::vector<policy::RunningJob> running, uint64_t generation) const;

 private:
  std::shared_ptr<const LoadedConfig> config_;
  std::vector<policy::RunningJob> running_;  // sorted by id
  std::vector<ReservedPool> reserved_;
  std::vector<policy::HeldCapacity> held_;
  policy::Ledger ledger_;
  uint64_t generation_;
  policy::PreemptionExposure exposure_;
};

// The registry (precondition for all three: the caller holds the job write lock).
// The job holds (or changed) an allocation: records its account, partition, nodes, GPUs,
// --share-priority and start time. A job with no node any more is dropped.
SHAREQ_CTLD_API void job_allocated(JobRecord* job);
// The job's allocation is gone (ended, requeued, preempted).
SHAREQ_CTLD_API void job_released(JobRecord* job);
// Rebuilds the registry from every running or suspended job of `jobs` (job_list).
SHAREQ_CTLD_API void jobs_reset(void* jobs);
// Whether the registry holds the job (it runs or is suspended, with nodes). Any lock state; takes
// only this file's mutex.
SHAREQ_CTLD_API bool job_holds_allocation(uint32_t job_id);

// The warm pools that now wait under WarmPoolMode=reserve (all of them, replacing the last
// list); a new snapshot follows when the list changed. Any lock state; takes only this file's
// mutex.
SHAREQ_CTLD_API void set_reserved_pools(std::vector<ReservedPool> pools);

// Something else changed (shareq.conf reloaded, reconfigure): rebuild the next snapshot.
SHAREQ_CTLD_API void jobs_changed();
SHAREQ_CTLD_API uint64_t jobs_generation();
// Nothing changed in the jobs, but the pending jobs want a ranking pass soon (the listener below,
// without a new snapshot): select/shareq after a refusal whose words the release drops
// (wait_reasons.hpp). Takes no Slurm lock and no shareq lock but the listener's.
SHAREQ_CTLD_API void ranking_wanted();

// Called after every change above (a job started or ended, the reserved pools or the
// configuration changed), from whichever thread made it, often with slurmctld's job write lock
// held: it must return at once and take no Slurm lock. priority/shareq re-ranks the pending jobs
// from it (recalc.hpp). nullptr: no listener.
using JobsChangedListener = void (*)();
SHAREQ_CTLD_API void set_jobs_changed_listener(JobsChangedListener listener);

// The snapshot for `config`. Reads only the registry (never job_list), so it may be called
// anywhere, also inside a job_list traversal. Thread-safe; returns the cached snapshot when
// nothing changed.
SHAREQ_CTLD_API std::shared_ptr<const RunningSnapshot> running_snapshot(
    const std::shared_ptr<const LoadedConfig>& config);

// The GPUs the job asks for (its TRES request; 0 when none or gres/gpu is not tracked).
SHAREQ_CTLD_API uint64_t requested_gpus(JobRecord* job);

// The position of gres/gpu in the TRES arrays (-1 when not tracked: add gres/gpu to
// AccountingStorageTRES), for the hot paths (under shareq's mutexes too): the cached position,
// -1 included. assoc_mgr is asked (under its TRES read lock) only while nothing is cached yet,
// i.e. at the start of the process before the first resolve; a reconfigure keeps the cached
// position until the next resolve replaces it. Must not be called with assoc_mgr locks held.
SHAREQ_CTLD_API int gpu_tres_pos();
// The same, but asks assoc_mgr again unless a position (>= 0) is cached and no refresh was
// requested, so a gres/gpu that became tracked later (slurmdbd reachable later) or moved (a
// reconfigure) is picked up. For the places that resolve on purpose once per pass, outside
// shareq's locks and assoc_mgr's (jobs_reset, priority/shareq's passes); aborts in checking builds
// when the thread holds a shareq lock.
SHAREQ_CTLD_API int resolve_gpu_tres_pos();
// Asks the next resolve_gpu_tres_pos() to look the position up again (priority_p_reconfig:
// AccountingStorageTRES may have changed). Only a flag: Slurm calls it with its locks held.
SHAREQ_CTLD_API void request_tres_pos_refresh();
// Back to the state of a new process, nothing cached (tests).
SHAREQ_CTLD_API void forget_tres_pos();

}  // namespace shareq::ctld
