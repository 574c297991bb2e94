#include "policy/job_record.hpp"

#include <algorithm>

#include "job_tag.hpp"
#include "policy/failed_runs.hpp"
#include "policy/fallback.hpp"

namespace shareq::policy {
namespace {

int64_t amount_in(const Policy& policy, FamilyId family, const JobRecord& job) {
  return std::max<int64_t>(policy.family(family).unit == Unit::Gpu ? job.gpus : job.nodes, 0);
}

// The job's share from its decoded tag (rules in the header).
std::optional<ShareId> share_from(const Policy& policy, const std::optional<Submission>& tag,
                                  const JobRecord& job) {
  if (tag && !tag->share.empty()) return policy.share_id(tag->share);
  if (const auto share = policy.share_id(job.account)) return share;
  return policy.unlisted_share();
}

int priority_from(const Policy& policy, const std::optional<Submission>& tag) {
  return tag ? tag->priority : policy.default_priority;
}

}  // namespace

std::optional<Submission> submission_tag(std::string_view admin_comment) {
  Result<Submission> tag = decode_submission(split_admin_comment(admin_comment).tag);
  if (!tag) return std::nullopt;
  return std::move(tag).value();
}

int submitted_priority(const Policy& policy, std::string_view admin_comment) {
  return priority_from(policy, submission_tag(admin_comment));
}

std::optional<ShareId> share_of(const Policy& policy, const JobRecord& job) {
  return share_from(policy, submission_tag(job.admin_comment), job);
}

// as_running and as_pending decode the tag once: they run for every job of every ranking.
std::optional<RunningJob> as_running(const Policy& policy, const JobRecord& job) {
  if (job.partitions.empty()) return std::nullopt;
  const std::optional<Submission> tag = submission_tag(job.admin_comment);
  const auto share = share_from(policy, tag, job);
  const auto family = policy.family_of_partition(job.partitions.front());
  if (!share || !family) return std::nullopt;
  return RunningJob{
      job.id,        *share, *family, amount_in(policy, *family, job), priority_from(policy, tag),
      job.start_time};
}

std::optional<PendingJob> as_pending(const Policy& policy, const JobRecord& job, Time now) {
  return as_pending(policy, job, now, failure_before(job.admin_comment, job.restarts));
}

std::optional<PendingJob> as_pending(const Policy& policy, const JobRecord& job, Time now,
                                     const std::optional<FailedRun>& failed_before) {
  const std::optional<Submission> tag = submission_tag(job.admin_comment);
  const auto share = share_from(policy, tag, job);
  if (!share) return std::nullopt;
  PendingJob p;
  p.id = job.id;
  p.share = *share;
  p.priority = priority_from(policy, tag);
  p.nice = job.nice;
  p.submit_time = job.submit_time;
  if (tag && !tag->home.empty()) p.home = policy.family_id(tag->home);
  const Time opens_at =
      fallback_opens_at(policy, job.eligible_time > 0 ? job.eligible_time : job.submit_time,
                        failed_before.has_value());
  for (const std::string& partition : job.partitions) {
    const auto family = policy.family_of_partition(partition);
    if (!family) continue;
    const bool seen = std::any_of(p.requests.begin(), p.requests.end(),
                                  [&](const FamilyRequest& r) { return r.family == *family; }) ||
                      std::any_of(p.later.begin(), p.later.end(),
                                  [&](const LaterRequest& r) { return r.family == *family; });
    if (seen) continue;
    const int64_t amount = amount_in(policy, *family, job);
    if (p.home && *family != *p.home && now < opens_at) {
      p.later.push_back({*family, amount, opens_at});
    } else {
      p.requests.push_back({*family, amount});
    }
  }
  if (p.requests.empty() && p.later.empty()) return std::nullopt;
  return p;
}

}  // namespace shareq::policy
