// The cluster as the policy core sees it: shareq.conf compiled into a Policy, and the jobs from
// slurmctld translated by the one translation the controller plugins use too
// (policy/job_record.hpp). Running and suspended jobs hold capacity (the Ledger); completing
// ones no longer do. A pending job whose reason is the scheduler's "waiting for the jobs it
// preempted to end" is awaiting its victims (policy/decision.hpp: a reclaim in flight).
// Jobs of no share or in no family are kept in jobs() but are not in running() or pending().
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "cluster_data.hpp"
#include "config.hpp"
#include "policy/decision.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "policy/policy.hpp"
#include "submission.hpp"

namespace shareq::tool {

class ClusterState {
 public:
  ClusterState(const Config& config, std::vector<JobInfo> jobs);
  ClusterState(const ClusterState&) = delete;  // the ledger points at policy_
  ClusterState& operator=(const ClusterState&) = delete;

  [[nodiscard]] const policy::Policy& policy() const { return policy_; }
  [[nodiscard]] const policy::Ledger& ledger() const { return ledger_; }
  [[nodiscard]] std::span<const policy::RunningJob> running() const { return running_; }
  [[nodiscard]] std::span<const policy::PendingJob> pending() const { return pending_; }
  // What policy::decide() reads: the running jobs. Reserved warm pools and nodes still completing
  // are not in the tool's view yet (the job's reason, from the scheduler, says when they matter).
  [[nodiscard]] policy::ControllerView view() const { return {ledger_, running_, {}, {}, 0}; }
  [[nodiscard]] const std::vector<JobInfo>& jobs() const { return jobs_; }

  // nullptr when absent.
  [[nodiscard]] const JobInfo* job(uint32_t id) const;
  [[nodiscard]] const policy::RunningJob* running_job(uint32_t id) const;
  [[nodiscard]] const policy::PendingJob* pending_job(uint32_t id) const;

 private:
  policy::Policy policy_;
  std::vector<JobInfo> jobs_;
  std::vector<policy::RunningJob> running_;
  std::vector<policy::PendingJob> pending_;
  policy::Ledger ledger_;
};

}  // namespace shareq::tool
