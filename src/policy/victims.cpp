// pick_victims and may_preempt: reclaim and in-share preemption (rules in victims.hpp).
#include "policy/victims.hpp"

#include <algorithm>
#include <optional>

#include "policy/quota_math.hpp"
#include "policy/reclaim_order.hpp"
#include "flags.hpp"
#include "text.hpp"

namespace shareq::policy {

namespace {

using Jobs = std::vector<const RunningJob*>;

// The job fits in what its share borrows in its family: taking it leaves the share at or above
// its quota (what makes a job of another share a reclaim candidate, ReclaimMinRuntime aside).
bool fits_in_what_its_share_borrows(const Ledger& ledger, const RunningJob& job) {
  return ledger.borrowed(job.share, job.family) >= job.amount;
}

// A job within quota has waited ReclaimAfter since it was submitted (or requeued): until then it
// waits for capacity to come free by itself instead of requeueing borrowed jobs.
bool reclaim_due(const Ledger& ledger, const PendingJob& job, Time now) {
  return math::sub(now, job.submit_time) >= ledger.policy().reclaim_after_s;
}

// The shortest prefix of the order (`next` yields it, nullptr at the end) that frees `need`;
// then, from its last victim back to its first, every victim dropped whose removal still leaves
// enough. nullopt when the whole order is not enough.
template <typename Next>
std::optional<Jobs> enough(Next next, int64_t need) {
  Jobs prefix;
  int64_t freed = 0;
  while (freed < need) {
    const RunningJob* job = next();
    if (job == nullptr) return std::nullopt;
    prefix.push_back(job);
    freed = math::add(freed, job->amount);
  }
  Jobs kept;
  for (size_t i = prefix.size(); i-- > 0;) {
    if (freed - prefix[i]->amount >= need) {
      freed -= prefix[i]->amount;
    } else {
      kept.push_back(prefix[i]);
    }
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

std::optional<Jobs> reclaim_set(const Ledger& ledger, ShareId self, FamilyId family,
                                std::span<const RunningJob> running, Time now, int64_t need,
                                bool honour_min_runtime) {
  ReclaimOrder order(ledger, self, family, running, now, honour_min_runtime);
  return enough([&] { return order.next(); }, need);
}

// InSharePreemption, except for the unlisted accounts' share: its jobs never preempt.
bool in_share_allowed(const Policy& policy, ShareId share) {
  return policy.in_share_preemption && !policy.is_unlisted(share);
}

VictimChoice chosen(const Jobs& jobs, PreemptKind kind) {
  VictimChoice choice;
  choice.possible = true;
  for (const RunningJob* job : jobs) choice.victims.push_back({job->id, kind});
  return choice;
}

VictimChoice reclaim(const Ledger& ledger, ShareId self, FamilyId family, int64_t amount,
                     std::span<const RunningJob> running, Time now) {
  const int64_t need = math::sub(math::add(ledger.used(family), amount), ledger.capacity(family));
  if (auto jobs = reclaim_set(ledger, self, family, running, now, need, true)) {
    return chosen(*jobs, PreemptKind::Reclaim);
  }
  VictimChoice choice;
  choice.reason = reclaim_set(ledger, self, family, running, now, need, false)
                      ? WaitReason::ReclaimMinRuntime
                      : WaitReason::FamilyAtCapacity;
  return choice;
}

std::optional<VictimChoice> in_share(const Ledger& ledger, const PendingJob& job, FamilyId family,
                                     int64_t amount, std::span<const RunningJob> running) {
  const int64_t after = math::add(ledger.usage(job.share, family), amount);
  const int64_t need =
      std::max(math::sub(after, ledger.quota(job.share, family)),
               math::sub(math::add(ledger.used(family), amount), ledger.capacity(family)));
  Jobs order;
  for (const RunningJob& r : running) {
    if (r.family == family && r.share == job.share && r.priority < job.priority && r.amount > 0) {
      order.push_back(&r);
    }
  }
  std::sort(order.begin(), order.end(),
            [](const RunningJob* a, const RunningJob* b) { return before_in_share(*a, *b); });
  size_t at = 0;
  auto jobs = enough(
      [&]() -> const RunningJob* { return at < order.size() ? order[at++] : nullptr; }, need);
  if (!jobs) return std::nullopt;
  return chosen(*jobs, PreemptKind::InShare);
}

}  // namespace

VictimChoice pick_victims(const Ledger& ledger, const PendingJob& job, FamilyId family,
                          int64_t amount, std::span<const RunningJob> running, Time now) {
  amount = std::max<int64_t>(amount, 0);
  const Admission admission = admit(ledger, job.share, family, amount);
  if (admission.can_start) return chosen({}, PreemptKind::Reclaim);
  if (admission.reason == WaitReason::NoQuotaInFamily ||
      admission.reason == WaitReason::LargerThanFamily) {
    return VictimChoice{false, {}, admission.reason};
  }
  if (admission.within_quota) {
    if (!reclaim_due(ledger, job, now)) return VictimChoice{false, {}, WaitReason::ReclaimAfter};
    return reclaim(ledger, job.share, family, amount, running, now);
  }
  if (in_share_allowed(ledger.policy(), job.share)) {
    if (auto choice = in_share(ledger, job, family, amount, running)) return *choice;
  }
  return VictimChoice{false, {}, admission.reason};
}

std::vector<JobId> placement_candidates(const Ledger& ledger, const PendingJob& job,
                                        FamilyId family, int64_t amount,
                                        std::span<const RunningJob> running, Time now) {
  const Admission admission = admit(ledger, job.share, family, std::max<int64_t>(amount, 0));
  if (!admission.within_quota || !reclaim_due(ledger, job, now)) return {};
  std::vector<JobId> ids;
  ReclaimOrder order(ledger, job.share, family, running, now, true);
  while (const RunningJob* next = order.next()) ids.push_back(next->id);
  return ids;
}

bool may_preempt(const Ledger& ledger, const PendingJob& job, FamilyId family, int64_t amount,
                 const RunningJob& candidate, Time now) {
  if (candidate.family != family || candidate.amount <= 0) return false;
  const Admission admission = admit(ledger, job.share, family, std::max<int64_t>(amount, 0));
  if (admission.reason == WaitReason::NoQuotaInFamily ||
      admission.reason == WaitReason::LargerThanFamily) {
    return false;
  }
  if (admission.within_quota) {  // reclaim, or placement when it fits by the numbers
    return candidate.share != job.share && reclaim_due(ledger, job, now) &&
           fits_in_what_its_share_borrows(ledger, candidate) &&
           now - candidate.start_time >= ledger.policy().reclaim_min_runtime_s;
  }
  return !admission.can_start && in_share_allowed(ledger.policy(), job.share) &&
         candidate.share == job.share && candidate.priority < job.priority;
}

PreemptionExposure preemption_exposure(const Ledger& ledger, std::span<const RunningJob> running) {
  const Policy& policy = ledger.policy();
  PreemptionExposure exposure;
  exposure.lowest_in_share.assign(policy.share_count(), kNoCandidate);
  for (const RunningJob& r : running) {
    if (r.amount <= 0) continue;
    if (fits_in_what_its_share_borrows(ledger, r)) exposure.reclaimable = true;
    if (in_share_allowed(policy, r.share) && r.share < exposure.lowest_in_share.size() &&
        policy.rule(r.share, r.family) != nullptr) {
      int& lowest = exposure.lowest_in_share[r.share];
      lowest = std::min(lowest, r.priority);
    }
  }
  return exposure;
}

bool any_preemptable(const PreemptionExposure& exposure, std::span<const int> highest_pending) {
  if (exposure.reclaimable) return true;
  for (size_t share = 0; share < exposure.lowest_in_share.size(); ++share) {
    const int lowest = exposure.lowest_in_share[share];
    if (lowest == kNoCandidate) continue;
    const int highest = share < highest_pending.size() ? highest_pending[share] : kMaxSharePriority;
    if (lowest < highest) return true;
  }
  return false;
}

std::string victims_words(std::span<const Victim> victims) {
  std::vector<std::string> ids;
  ids.reserve(victims.size());
  for (const Victim& v : victims) ids.push_back(std::to_string(v.id));
  return (ids.size() == 1 ? "job " : "jobs ") + text::join(ids);
}

}  // namespace shareq::policy
