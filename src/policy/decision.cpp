#include "policy/decision.hpp"

#include <algorithm>

#include "policy/fallback.hpp"
#include "policy/warm_reclaim.hpp"

namespace shareq::policy {
namespace {

struct Ask {
  const ControllerView& view;
  const PendingJob& job;
  FamilyId family;
  int64_t amount;
  Time now;
};

Decision wait(Decision d, const Ledger& ledger, const Ask& ask, WaitReason reason) {
  d.verdict = Verdict::Wait;
  d.reason = reason;
  d.words = describe(reason, ledger, ask.job.share, ask.family, ask.amount);
  return d;
}

bool node_completing(const ControllerView& view, FamilyId family, Time now) {
  return std::any_of(view.completing.begin(), view.completing.end(), [&](const CompletingNode& n) {
    return n.family == family && now < n.ended_at + view.completing_bound_s;
  });
}

// Rule 3: the job's own reserved pool, when starting on it is allowed by the numbers.
std::optional<uint64_t> own_pool(const Ask& ask) {
  if (!ask.job.reserved_pool) return std::nullopt;
  const auto held =
      std::find_if(ask.view.held.begin(), ask.view.held.end(),
                   [&](const HeldCapacity& h) { return h.pool == *ask.job.reserved_pool; });
  if (held == ask.view.held.end() || held->family != ask.family || held->share != ask.job.share) {
    return std::nullopt;
  }
  if (!admit(ask.view.ledger.without(*held), ask.job.share, ask.family, ask.amount).can_start) {
    return std::nullopt;
  }
  return held->pool;
}

// Rules 5 and 6 on `ledger` (the view's, less the pools the job would end first).
Decision start_or_preempt(Decision d, const Ledger& ledger, const Ask& ask) {
  const Admission admission = admit(ledger, ask.job.share, ask.family, ask.amount);
  d.within_quota = admission.within_quota;
  if (admission.can_start) {
    d.verdict = Verdict::Start;
    if (!admission.within_quota) return d;
    if (node_completing(ask.view, ask.family, ask.now)) {
      d.no_room = kAwaitingCompletingNode;
    } else {
      d.reclaim_to_fit =
          placement_candidates(ledger, ask.job, ask.family, ask.amount, ask.view.running, ask.now);
    }
    return d;
  }
  VictimChoice choice =
      pick_victims(ledger, ask.job, ask.family, ask.amount, ask.view.running, ask.now);
  if (!choice.possible || choice.victims.empty()) {
    const WaitReason why =
        !choice.possible && choice.reason != WaitReason::None ? choice.reason : admission.reason;
    d.end_pools.clear();
    return wait(d, ledger, ask, why);
  }
  d.verdict = Verdict::Preempt;
  d.victims = std::move(choice.victims);
  d.reason = admission.reason;  // shown if the scheduler cannot preempt them after all
  d.words = describe(admission.reason, ledger, ask.job.share, ask.family, ask.amount);
  return d;
}

Decision decide_open(const ControllerView& view, const PendingJob& job, FamilyId family, Time now);

// Rule 0: a fallback family before its FallbackDelay: the job waits for its home family, and
// says what holds it there and when it may fall back.
Decision wait_for_fallback(const ControllerView& view, const PendingJob& job,
                           const LaterRequest& later, Time now) {
  const Ask ask{view, job, later.family, later.amount, now};
  Decision d = wait(Decision{}, view.ledger, ask, WaitReason::FallbackDelay);
  if (!job.home) return d;
  const Decision home = decide_open(view, job, *job.home, now);
  d.words = "shareq: family " + view.ledger.policy().family(*job.home).name + ": " +
            held_at_home(home) + fallback_note(view.ledger.policy(), job, now);
  return d;
}

}  // namespace

Decision decide(const ControllerView& view, const PendingJob& job, FamilyId family, Time now) {
  const auto later = std::find_if(job.later.begin(), job.later.end(),
                                  [&](const LaterRequest& r) { return r.family == family; });
  if (later != job.later.end()) return wait_for_fallback(view, job, *later, now);
  Decision d = decide_open(view, job, family, now);
  if (d.verdict == Verdict::Wait && !job.later.empty()) {
    d.words += fallback_note(view.ledger.policy(), job, now);
  }
  return d;
}

namespace {

Decision decide_open(const ControllerView& view, const PendingJob& job, FamilyId family, Time now) {
  const auto request = std::find_if(job.requests.begin(), job.requests.end(),
                                    [&](const FamilyRequest& r) { return r.family == family; });
  const Ask ask{view, job, family, request != job.requests.end() ? request->amount : 0, now};
  Decision d;
  if (request == job.requests.end()) return wait(d, view.ledger, ask, WaitReason::NoQuotaInFamily);

  const Admission admission = admit(view.ledger, job.share, family, ask.amount);
  d.within_quota = admission.within_quota;
  if (admission.reason == WaitReason::LargerThanFamily ||
      admission.reason == WaitReason::NoQuotaInFamily) {
    return wait(d, view.ledger, ask, admission.reason);  // never runnable
  }
  if (job.awaiting_victims) {
    // A victim still running holds its capacity: starting now, on another node with room, would
    // run the family over its capacity until the victim ends.
    if (job.victims_running) {
      d.verdict = Verdict::Wait;
      d.words = std::string("shareq: ") + kAwaitingVictims;  // as describe() words a Wait
    } else {
      d.verdict = Verdict::Start;
      d.no_room = kAwaitingVictims;
    }
    return d;
  }
  if (admission.can_start) return start_or_preempt(d, view.ledger, ask);

  d.on_pool = own_pool(ask);
  d.end_pools = pools_to_end(view.ledger, job, family, ask.amount, view.held);
  if (d.end_pools.empty()) return start_or_preempt(d, view.ledger, ask);
  Ledger without = view.ledger;
  for (const HeldCapacity& h : view.held) {
    if (std::find(d.end_pools.begin(), d.end_pools.end(), h.pool) != d.end_pools.end()) {
      without = without.without(h);
    }
  }
  return start_or_preempt(d, without, ask);
}

}  // namespace

}  // namespace shareq::policy
