// The cluster as the policy core sees it: shareq.conf compiled into a Policy, and the jobs from
// slurmctld translated the way the controller plugins translate them (plugins/ctld/translate.h):
//   share    = the job's account (job_submit/shareq sets it to --share), any case;
//   family   = the partition it runs in (running) or each of its partitions in order (pending);
//   amount   = nodes in a node family, GPUs (gres/gpu TRES) in a GPU family;
//   priority = the priority= of the job's AdminComment tag, else DefaultPriority;
//   awaiting its victims = its reason is the scheduler's "waiting for the jobs it preempted to
//   end" (policy/decision.hpp: a reclaim in flight).
// Running and suspended jobs hold capacity (the Ledger); completing ones no longer do.
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

// The job_submit/shareq tag at the start of an AdminComment (its first word; later words are
// warm-pool notes); nullopt when there is none or it does not decode.
std::optional<Submission> job_tag(std::string_view admin_comment);

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

  // What `job` holds (running) or asks (pending) in `family`, in the family's unit.
  [[nodiscard]] int64_t amount(const JobInfo& job, policy::FamilyId family) const;

 private:
  policy::Policy policy_;
  std::vector<JobInfo> jobs_;
  std::vector<policy::RunningJob> running_;
  std::vector<policy::PendingJob> pending_;
  policy::Ledger ledger_;
};

}  // namespace shareq::tool
