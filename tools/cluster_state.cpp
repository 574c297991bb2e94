#include "cluster_state.hpp"

#include <algorithm>

#include "policy/decision.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

int priority_of(const policy::Policy& policy, const JobInfo& job) {
  const std::optional<Submission> tag = job_tag(job.admin_comment);
  return tag ? tag->priority : policy.default_priority;
}

int64_t amount_in(const policy::Policy& policy, policy::FamilyId family, const JobInfo& job) {
  return policy.family(family).unit == Unit::Gpu ? job.gpus : job.nodes;
}

std::vector<policy::RunningJob> running_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs) {
  std::vector<policy::RunningJob> running;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Running && job.state != JobState::Suspended) continue;
    const auto share = policy.share_id(job.account);
    if (!share || job.partitions.empty()) continue;
    const auto family = policy.family_of_partition(job.partitions.front());
    if (!family) continue;
    running.push_back({job.id, *share, *family, amount_in(policy, *family, job),
                       priority_of(policy, job), job.start_time});
  }
  return running;
}

std::vector<policy::PendingJob> pending_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs) {
  std::vector<policy::PendingJob> pending;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Pending) continue;
    const auto share = policy.share_id(job.account);
    if (!share) continue;
    policy::PendingJob p{job.id, *share, priority_of(policy, job), job.submit_time, {}};
    p.awaiting_victims = job.reason.find(policy::kAwaitingVictims) != std::string::npos;
    for (const std::string& partition : job.partitions) {
      const auto family = policy.family_of_partition(partition);
      const bool seen = family && std::any_of(p.requests.begin(), p.requests.end(),
                                              [&](const auto& r) { return r.family == *family; });
      if (family && !seen) p.requests.push_back({*family, amount_in(policy, *family, job)});
    }
    if (!p.requests.empty()) pending.push_back(std::move(p));
  }
  return pending;
}

}  // namespace

std::optional<Submission> job_tag(std::string_view admin_comment) {
  const std::string_view first = admin_comment.substr(0, admin_comment.find(' '));
  Result<Submission> tag = decode_submission(first);
  if (!tag) return std::nullopt;
  return std::move(tag).value();
}

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

int64_t ClusterState::amount(const JobInfo& job, policy::FamilyId family) const {
  return amount_in(policy_, family, job);
}

}  // namespace shareq::tool
