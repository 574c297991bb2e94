// One scheduling pass as slurmctld runs it with shareq's plugins: rank the pending jobs
// (prioritize_queue), then for each job, in that order, call decide() and act:
//   Start   -> place it (best fit); when no node has room and it is within quota, preempt from
//              reclaim_to_fit in order until it fits, only those on the nodes it then takes;
//   Preempt -> requeue the victims, then start it (if the victims' nodes do not give it room,
//              nothing is preempted and it waits);
//   Wait    -> skip it.
// A job's partitions are tried in the user's order. Preempted jobs end at once (no grace time).
//
// decide() is first asked with a view without the running jobs: its verdict is the same whenever
// it is Start (admission reads only the ledger), and a Wait there means no victims; only when the
// job could preempt (preemption_exposure says a reclaim or in-share candidate exists) or needs
// reclaim_to_fit is decide() asked again with the running jobs. Same decisions, far fewer
// O(running) searches.
#include <algorithm>
#include <unordered_set>

#include "policy/decision.hpp"
#include "policy/usage.hpp"
#include "sim/schedulers.hpp"

namespace shareq::sim {

using policy::ControllerView;
using policy::Decision;
using policy::Verdict;
using policy::WaitReason;

ShareqScheduler::ShareqScheduler(SimState& state, ShareqTuning tuning)
    : state_(state), tuning_(tuning) {}

void ShareqScheduler::accrue_usage() {
  const policy::Time elapsed = state_.now() - accrued_at_;
  if (elapsed < tuning_.priority_calc_period_s && !usage_.empty()) return;
  policy::accrue(usage_, state_.policy(), state_.running(), elapsed, tuning_.decay_half_life_s);
  accrued_at_ = state_.now();
}

PassOutcome ShareqScheduler::pass() {
  PassOutcome out;
  if (state_.pending().empty()) return out;
  accrue_usage();
  const auto ranks = policy::rank_shares(state_.ledger(), usage_);
  const auto ranked = policy::prioritize_queue(ranks, state_.ledger(), state_.pending());
  std::vector<std::pair<uint32_t, policy::JobId>> order;
  order.reserve(ranked.factors.size());
  for (size_t i = 0; i < ranked.factors.size(); ++i) {
    order.emplace_back(ranked.factors[i].priority, state_.pending()[i].id);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& [priority, id] : order) {
    if (state_.run(id).status == JobStatus::Pending) try_job(id, out);
  }
  return out;
}

void ShareqScheduler::try_job(policy::JobId id, PassOutcome& out) {
  const policy::PendingJob job = state_.pending()[state_.run(id).slot];
  for (int r = 0; r < static_cast<int>(job.requests.size()); ++r) {
    if (try_request(job, r, out)) {
      out.changed = true;
      exposure_stale_ = true;
      return;
    }
  }
}

bool ShareqScheduler::try_request(const policy::PendingJob& job, int request, PassOutcome& out) {
  const policy::FamilyId family = job.requests[request].family;
  const ControllerView light{state_.ledger(), {}, {}, {}, 0};
  const ControllerView full{state_.ledger(), state_.running(), {}, {}, 0};
  ++out.decisions;
  const Decision d = policy::decide(light, job, family, state_.now());
  if (d.verdict == Verdict::Start) {
    if (const auto nodes = state_.best_fit(job.id, request)) {
      state_.start(job.id, request, *nodes);
      return true;
    }
    if (!d.within_quota) return false;
    ++out.decisions;
    const Decision again = policy::decide(full, job, family, state_.now());
    return reclaim_to_fit(job.id, request, again.reclaim_to_fit);
  }
  if (!may_preempt(job, request, out)) return false;
  ++out.decisions;
  const Decision again = policy::decide(full, job, family, state_.now());
  if (again.verdict == Verdict::Preempt) return preempt_and_start(job.id, request, again.victims);
  if (again.reason == WaitReason::ReclaimAfter || again.reason == WaitReason::ReclaimMinRuntime) {
    out.time_may_help = true;
  }
  return false;
}

// Whether decide() with the running jobs could name victims; false is exact (no candidate).
bool ShareqScheduler::may_preempt(const policy::PendingJob& job, int request, PassOutcome& out) {
  if (exposure_stale_) {
    exposure_ = policy::preemption_exposure(state_.ledger(), state_.running());
    exposure_stale_ = false;
  }
  const auto& req = job.requests[request];
  const auto& ledger = state_.ledger();
  const bool within =
      ledger.usage(job.share, req.family) + req.amount <= ledger.quota(job.share, req.family);
  if (within && exposure_.reclaimable) {
    if (state_.now() - job.submit_time >= state_.policy().reclaim_after_s) return true;
    out.time_may_help = true;
    return false;
  }
  const auto& lowest = exposure_.lowest_in_share;
  return state_.policy().in_share_preemption && job.share < lowest.size() &&
         job.priority > lowest[job.share];
}

bool ShareqScheduler::preempt_and_start(policy::JobId id, int request,
                                        const std::vector<policy::Victim>& victims) {
  NodePool& pool = state_.pool();
  auto release_all = [&](bool release) {
    for (const auto& v : victims) {
      const JobRun& run = state_.run(v.id);
      const int64_t per_node = state_.job(v.id).shapes[run.request].per_node;
      release ? pool.release(run.nodes, per_node) : pool.allocate(run.nodes, per_node);
    }
  };
  release_all(true);
  const auto nodes = state_.best_fit(id, request);
  release_all(false);
  if (!nodes) return false;
  for (const auto& v : victims) state_.requeue(v.id);
  state_.start(id, request, *nodes);
  return true;
}

bool ShareqScheduler::reclaim_to_fit(policy::JobId id, int request,
                                     const std::vector<policy::JobId>& candidates) {
  NodePool& pool = state_.pool();
  auto per_node = [&](policy::JobId v) {
    return state_.job(v).shapes[state_.run(v).request].per_node;
  };
  std::optional<std::vector<int>> nodes;
  size_t taken = 0;
  while (taken < candidates.size() && !nodes) {
    pool.release(state_.run(candidates[taken]).nodes, per_node(candidates[taken]));
    ++taken;
    nodes = state_.best_fit(id, request);
  }
  for (size_t i = 0; i < taken; ++i) {
    pool.allocate(state_.run(candidates[i]).nodes, per_node(candidates[i]));
  }
  if (!nodes) return false;
  const std::unordered_set<int> chosen(nodes->begin(), nodes->end());
  for (size_t i = 0; i < taken; ++i) {
    const auto& on = state_.run(candidates[i]).nodes;
    if (std::any_of(on.begin(), on.end(), [&](int n) { return chosen.count(n) > 0; })) {
      state_.requeue(candidates[i]);
    }
  }
  state_.start(id, request, *nodes);
  return true;
}

}  // namespace shareq::sim
