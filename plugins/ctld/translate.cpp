#include "translate.hpp"

#include <algorithm>
#include <limits>

#include "submission.hpp"
#include "submit_shim_internal.hpp"

struct shareq_policy {
  shareq::policy::Policy policy;
};

namespace shareq::ctld {
namespace {

int64_t clamp_amount(uint64_t v) {
  return static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max()));
}

}  // namespace

int job_priority(const policy::Policy& policy, char* const* env, uint32_t size) {
  const char* value = shareq_env_flag(env, size, SHAREQ_FLAG_PRIORITY);
  if (value != nullptr) {
    Result<int> parsed = parse_share_priority(value);
    if (parsed) {
      return parsed.value();
    }
  }
  return policy.default_priority;
}

int64_t job_amount(const policy::Policy& policy, policy::FamilyId f, const shareq_job_view_t& job) {
  return policy.family(f).unit == Unit::Gpu ? clamp_amount(job.gpus) : clamp_amount(job.nodes);
}

std::optional<policy::RunningJob> to_running(const policy::Policy& policy,
                                             const shareq_job_view_t& job) {
  if (job.account == nullptr || job.partition_count == 0 || job.partitions == nullptr ||
      job.partitions[0] == nullptr) {
    return std::nullopt;
  }
  const auto share = policy.share_id(job.account);
  const auto family = policy.family_of_partition(job.partitions[0]);
  if (!share || !family) {
    return std::nullopt;
  }
  policy::RunningJob r;
  r.id = job.job_id;
  r.share = *share;
  r.family = *family;
  r.amount = job_amount(policy, *family, job);
  r.priority = job_priority(policy, job.spank_env, job.spank_env_size);
  r.start_time = job.start_time;
  return r;
}

std::optional<policy::PendingJob> to_pending(const policy::Policy& policy,
                                             const shareq_job_view_t& job) {
  if (job.account == nullptr || job.partitions == nullptr) {
    return std::nullopt;
  }
  const auto share = policy.share_id(job.account);
  if (!share) {
    return std::nullopt;
  }
  policy::PendingJob p;
  p.id = job.job_id;
  p.share = *share;
  p.priority = job_priority(policy, job.spank_env, job.spank_env_size);
  p.submit_time = job.submit_time;
  for (uint32_t i = 0; i < job.partition_count; ++i) {
    if (job.partitions[i] == nullptr) continue;
    const auto family = policy.family_of_partition(job.partitions[i]);
    if (!family) continue;
    const bool seen =
        std::any_of(p.requests.begin(), p.requests.end(),
                    [&](const policy::FamilyRequest& r) { return r.family == *family; });
    if (!seen) {
      p.requests.push_back({*family, job_amount(policy, *family, job)});
    }
  }
  if (p.requests.empty()) {
    return std::nullopt;
  }
  return p;
}

}  // namespace shareq::ctld

extern "C" {

shareq_policy_t* shareq_policy_compile(const shareq_conf_t* conf) {
  try {
    return conf != nullptr ? new shareq_policy{shareq::policy::Policy::compile(conf->config)}
                           : nullptr;
  } catch (...) {
    return nullptr;
  }
}

void shareq_policy_free(shareq_policy_t* policy) { delete policy; }

int64_t shareq_policy_share(const shareq_policy_t* policy, const char* name) {
  const auto id = policy->policy.share_id(name != nullptr ? name : "");
  return id ? static_cast<int64_t>(*id) : -1;
}

int64_t shareq_policy_family(const shareq_policy_t* policy, const char* name) {
  const auto id = policy->policy.family_id(name != nullptr ? name : "");
  return id ? static_cast<int64_t>(*id) : -1;
}

bool shareq_translate_running(const shareq_policy_t* policy, const shareq_job_view_t* job,
                              shareq_running_t* out) {
  try {
    const auto r = shareq::ctld::to_running(policy->policy, *job);
    if (!r) return false;
    *out = shareq_running_t{r->id, r->share, r->family, r->amount, r->priority, r->start_time};
    return true;
  } catch (...) {
    return false;
  }
}

bool shareq_translate_pending(const shareq_policy_t* policy, const shareq_job_view_t* job,
                              shareq_pending_t* out) {
  try {
    const auto p = shareq::ctld::to_pending(policy->policy, *job);
    if (!p) return false;
    *out = shareq_pending_t{};
    out->job_id = p->id;
    out->share = p->share;
    out->priority = p->priority;
    out->submit_time = p->submit_time;
    for (const auto& r : p->requests) {
      if (out->request_count == SHAREQ_MAX_REQUESTS) break;
      out->requests[out->request_count].family = r.family;
      out->requests[out->request_count].amount = r.amount;
      ++out->request_count;
    }
    return true;
  } catch (...) {
    return false;
  }
}

int shareq_translate_priority(const shareq_policy_t* policy, char* const* env, uint32_t size) {
  return shareq::ctld::job_priority(policy->policy, env, size);
}

}  // extern "C"
