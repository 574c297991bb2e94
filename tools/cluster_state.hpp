// The cluster as the policy core sees it: shareq.conf compiled into a Policy, and what slurmctld
// reports (ClusterData) turned into the same ControllerView that slurmctld's select plugin
// decides on (policy/decision.hpp):
//  - jobs, by the one translation the controller plugins use too (policy/job_record.hpp).
//    Running and suspended jobs hold capacity (the Ledger); completing ones no longer do.
//  - reclaims in flight: a pending job N is awaiting its victims (the jobs whose SystemComment
//    says "shareq: preempted by job N") when they were signalled (PreemptTime) within the claim's
//    lifetime (PreemptGraceTime + job_end_allowance_s), or when its reason is the scheduler's
//    "waiting for the jobs it preempted to end". As slurmctld does (ctld/reclaim_claims.hpp,
//    policy::with_claims), its victims no longer count and it counts as running, with its
//    request in the family of its victims, since they were signalled.
//  - reserved warm pools (WarmPoolMode=reserve): every pool that a node's Extra shows waiting
//    (available, reused) and not yet expired holds its nodes for its owner's share, counted in
//    the Ledger as usage by policy::held_capacity (as ctld/slurm_jobs.cpp counts them). Its
//    family is that of the partitions all its nodes are in.
//  - completing nodes: the nodes still COMPLETING a job, with the job's end time, waited for up
//    to slurmctld's job_end_allowance_s after it (policy::job_end_allowance_s).
// Not visible to the tool: whether a pending job matches a reserved pool of its own share (the
// pool's key is for people), so PendingJob::reserved_pool stays empty.
// Jobs of no share or in no family are kept in jobs() but are not in running() or pending().
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster_data.hpp"
#include "config.hpp"
#include "policy/decision.hpp"
#include "policy/job_record.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "policy/policy.hpp"
#include "policy/reclaim_claims.hpp"

namespace shareq::tool {

// The job as policy/job_record.hpp reads it: the tool's side of the one translation (the
// controller plugins' side: ctld/slurm_jobs.cpp's running_record and pending_record).
policy::JobRecord job_record_of(const JobInfo& job);

// The name of the job's share under `policy` (policy::share_of), else its account, lower-case.
std::string share_name_of(const policy::Policy& policy, const JobInfo& job);

// A warm pool that holds its nodes for its owner's share (WarmPoolMode=reserve).
struct ReservedPoolInfo {
  std::string name;                // "wp-3"
  std::string partition;           // the partition its family was taken from
  std::vector<std::string> nodes;  // in node-table order
  policy::HeldCapacity held;
};

// A node COMPLETING a job that ended at `node.ended_at`, in one of its partitions.
struct CompletingEntry {
  std::string node;
  std::string partition;
  policy::CompletingNode completing;
};

class ClusterState {
 public:
  // Jobs only: no warm pool, no completing node.
  ClusterState(const Config& config, std::vector<JobInfo> jobs);
  ClusterState(const Config& config, ClusterData data);
  ClusterState(const ClusterState&) = delete;  // the ledger points at policy_
  ClusterState& operator=(const ClusterState&) = delete;

  [[nodiscard]] const policy::Policy& policy() const { return policy_; }
  // Running jobs (reclaims in flight applied) and reserved pools.
  [[nodiscard]] const policy::Ledger& ledger() const { return ledger_; }
  [[nodiscard]] std::span<const policy::RunningJob> running() const { return running_; }
  [[nodiscard]] std::span<const policy::PendingJob> pending() const { return pending_; }
  [[nodiscard]] std::span<const policy::ReclaimClaim> claims() const { return claims_; }
  [[nodiscard]] std::span<const ReservedPoolInfo> reserved_pools() const { return reserved_; }
  [[nodiscard]] std::span<const CompletingEntry> completing() const { return completing_; }
  [[nodiscard]] int64_t job_end_allowance_s() const { return allowance_; }
  // When the data was read (ClusterData::now; 0 for the jobs-only constructor).
  [[nodiscard]] int64_t now() const { return now_; }
  // What was read but could not be used: "node p4n1: Extra ...: ...", a pool whose family is
  // ambiguous. Each one a sentence for stderr.
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }
  [[nodiscard]] const std::vector<JobInfo>& jobs() const { return jobs_; }

  // What policy::decide() reads, with every completing node.
  [[nodiscard]] policy::ControllerView view() const;
  // The completing nodes that slurmctld tests `job` against: those in the job's own partitions
  // (slurmctld looks at the partition it tries, recent_ends.hpp).
  [[nodiscard]] std::vector<policy::CompletingNode> completing_for(
      const policy::PendingJob& job) const;
  // policy::decide() for `job` in `family` at `now`, on the view slurmctld decides on.
  [[nodiscard]] policy::Decision decide(const policy::PendingJob& job, policy::FamilyId family,
                                        int64_t now) const;
  // The pending jobs that may run in `family` and are not held (Slurm priority 0), in Slurm's
  // order: highest priority first, equal priorities by job id.
  [[nodiscard]] std::vector<const JobInfo*> queue(policy::FamilyId family) const;
  // The first job of queue(family) that decide() lets start or preempt now, or that awaits the
  // victims of its reclaim: the one that starts next in the family. nullptr when every one waits.
  [[nodiscard]] const JobInfo* next_to_start(policy::FamilyId family, int64_t now) const;

  // nullptr when absent.
  [[nodiscard]] const JobInfo* job(uint32_t id) const;
  [[nodiscard]] const policy::RunningJob* running_job(uint32_t id) const;
  [[nodiscard]] const policy::PendingJob* pending_job(uint32_t id) const;

 private:
  policy::Policy policy_;
  std::vector<JobInfo> jobs_;
  int64_t now_ = 0;
  int64_t allowance_ = 0;
  std::vector<std::string> problems_;
  std::vector<policy::PendingJob> pending_;
  std::vector<policy::ReclaimClaim> claims_;
  std::vector<policy::RunningJob> running_;
  std::vector<ReservedPoolInfo> reserved_;
  std::vector<policy::HeldCapacity> held_;
  std::vector<CompletingEntry> completing_;
  std::vector<policy::CompletingNode> all_completing_;
  policy::Ledger ledger_;
};

}  // namespace shareq::tool
