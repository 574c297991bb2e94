#include "cluster_state.hpp"

#include <algorithm>

#include "policy/decision.hpp"
#include "policy/job_record.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

// The JobInfo as policy/job_record.hpp reads a job (the one translation).
policy::JobRecord record_of(const JobInfo& job) {
  return {job.id,   job.account,       job.partitions,  job.nodes,
          job.gpus, job.admin_comment, job.submit_time, job.start_time};
}

std::vector<policy::RunningJob> running_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs) {
  std::vector<policy::RunningJob> running;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Running && job.state != JobState::Suspended) continue;
    if (auto r = policy::as_running(policy, record_of(job))) running.push_back(*r);
  }
  return running;
}

std::vector<policy::PendingJob> pending_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs) {
  std::vector<policy::PendingJob> pending;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Pending) continue;
    auto p = policy::as_pending(policy, record_of(job));
    if (!p) continue;
    p->awaiting_victims = job.reason.find(policy::kAwaitingVictims) != std::string::npos;
    pending.push_back(std::move(*p));
  }
  return pending;
}

}  // namespace

ClusterState::ClusterState(const Config& config, std::vector<JobInfo> jobs)
    : policy_(policy::Policy::compile(config)),
      jobs_(std::move(jobs)),
      running_(running_of(policy_, jobs_)),
      pending_(pending_of(policy_, jobs_)),
      ledger_(policy_, running_) {}

const JobInfo* ClusterState::job(uint32_t id) const {
  const auto it =
      std::find_if(jobs_.begin(), jobs_.end(), [&](const JobInfo& j) { return j.id == id; });
  return it != jobs_.end() ? &*it : nullptr;
}

const policy::RunningJob* ClusterState::running_job(uint32_t id) const {
  const auto it = std::find_if(running_.begin(), running_.end(),
                               [&](const policy::RunningJob& j) { return j.id == id; });
  return it != running_.end() ? &*it : nullptr;
}

const policy::PendingJob* ClusterState::pending_job(uint32_t id) const {
  const auto it = std::find_if(pending_.begin(), pending_.end(),
                               [&](const policy::PendingJob& j) { return j.id == id; });
  return it != pending_.end() ? &*it : nullptr;
}

}  // namespace shareq::tool
