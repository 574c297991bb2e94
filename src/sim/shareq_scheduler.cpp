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
//
// A job that found nothing to do is not tried again while nothing it reads has changed, nor is a
// job of the same kind at the same state (see try_job); a pass where no job would start is not
// ranked at all (any_may_start), and the queue is not ranked again while the ledger, the decayed
// usage and the pending jobs are those it was ranked from. All skip only work whose answer is
// known: same results.
#include <algorithm>
#include <limits>
#include <unordered_set>

#include "policy/decision.hpp"
#include "policy/usage.hpp"
#include "sim/pass_records.hpp"
#include "sim/schedulers.hpp"

namespace shareq::sim {

using policy::ControllerView;
using policy::Decision;
using policy::Verdict;
using policy::WaitReason;

constexpr policy::Time kNever = std::numeric_limits<policy::Time>::max();

ShareqScheduler::ShareqScheduler(SimState& state, ShareqTuning tuning)
    : state_(state),
      tuning_(tuning),
      memo_(state.workload()),
      overlapping_(overlapping_partitions(state.workload())) {}

void ShareqScheduler::accrue_usage() {
  const policy::Time elapsed = state_.now() - accrued_at_;
  if (elapsed < tuning_.priority_calc_period_s && !usage_.empty()) return;
  policy::accrue(usage_, state_.policy(), state_.running(), elapsed, tuning_.decay_half_life_s);
  accrued_at_ = state_.now();
  ++usage_version_;
}

// The order depends only on the ledger, the decayed usage and the pending jobs: when none of them
// changed since the last ranking, it is the same.
void ShareqScheduler::rank_queue() {
  if (order_queue_generation_ == state_.queue_generation() &&
      order_usage_version_ == usage_version_) {
    return;
  }
  const auto ranks = policy::rank_shares(state_.ledger(), usage_);
  const auto ranked = policy::prioritize_queue(ranks, state_.ledger(), state_.pending());
  order_.clear();
  order_.reserve(ranked.factors.size());
  for (size_t i = 0; i < ranked.factors.size(); ++i) {
    order_.emplace_back(ranked.factors[i].priority, state_.pending()[i].id);
  }
  std::sort(order_.begin(), order_.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  order_queue_generation_ = state_.queue_generation();
  order_usage_version_ = usage_version_;
}

PassOutcome ShareqScheduler::pass(const PassBounds& bounds) {
  PassOutcome out;
  if (state_.pending().empty()) return out;
  if (waiting_.size() != state_.workload().jobs.size()) {
    waiting_.assign(state_.workload().jobs.size(), Waiting{});
  }
  accrue_usage();
  if (bounds.bounded()) {
    bounded_pass(bounds, out);
    return out;
  }
  if (tuning_.skip_known_waits && state_.pending().size() == 1) {
    try_job(state_.pending().front().id, out, true);  // a queue of one is in order
    return out;
  }
  if (tuning_.skip_known_waits && !any_may_start(out)) return out;
  rank_queue();
  // A start changes the queue (and so order_ at the next ranking), never this pass's order.
  for (const auto& [priority, id] : order_) {
    if (state_.run(id).status == JobStatus::Pending) try_job(id, out, true);
  }
  return out;
}

// Slurm's main pass (job_scheduler.c, _schedule): the ranked queue's records in order, each
// tested unless its partition has had partition_depth records tested or has been stopped, until
// queue_depth + 1 records were tested. Not probed first (any_may_start): the pass tries only a
// few jobs, and the probe would try them all.
void ShareqScheduler::bounded_pass(const PassBounds& bounds, PassOutcome& out) {
  rank_queue();
  PassRecords tested(bounds, overlapping_);
  for (const auto& [priority, id] : order_) {
    if (state_.run(id).status != JobStatus::Pending || !state_.eligible(id)) continue;
    if (!try_records(id, priority, bounds, tested, out)) return;
  }
}

// Tests the job's records (its requests, in the user's order) within the bounds; false when the
// pass is over (queue_depth reached, or every partition had its partition_depth records). A job
// known to wait (Waiting, the memo) fails each record it would have tested; a try is remembered
// only when it tried every request.
bool ShareqScheduler::try_records(policy::JobId id, uint32_t priority, const PassBounds& bounds,
                                  PassRecords& tested, PassOutcome& out) {
  const SimJob& sim_job = state_.job(id);
  bool done = true;
  const std::vector<int> records = tested.next(sim_job, done);
  const bool every_request = records.size() == sim_job.requests.size();
  if (records.empty()) return done;
  const policy::PendingJob job = state_.pending()[state_.run(id).slot];  // a start reorders them
  const auto& policy = state_.policy();
  const TryKey key = memo_.key(id, state_.now() - job.submit_time >= policy.reclaim_after_s,
                               policy.in_share_preemption ? job.priority : 0);
  const bool reserves = bounds.min_prio_reserve == 0 || priority >= bounds.min_prio_reserve;
  // Waiting and the memo speak for a try of every request: asked only when this pass tries them
  // all (none skipped, none stopped before or by the job's own records), at the first one.
  bool whole = every_request && (records.size() == 1 || !bounds.stop_partition);
  for (int r : records) whole = whole && !tested.stopped(sim_job.shapes[r].partition);
  int known = whole ? -1 : 0;
  Attempt attempt;
  bool tried_all = every_request;
  for (int r : records) {
    const int partition = sim_job.shapes[r].partition;
    if (tested.stopped(partition)) {
      tried_all = false;
      continue;
    }
    if (known < 0) known = tuning_.skip_known_waits && known_wait(id, key, out) ? 1 : 0;
    if (known == 0 && try_request(job, r, out, attempt, true)) {
      started(id, out);
      return done;
    }
    if (bounds.stop_partition && reserves) tested.stop(partition);
  }
  if (known != 0) return done;  // known to wait, or nothing tested
  if (tried_all && tuning_.skip_known_waits) {
    memo_.remember(key, state_.generation(), state_.now(), attempt);
  }
  if (tried_all) {
    wait(id, attempt, out);
  } else if (attempt.time_may_help) {
    out.time_may_help = true;
  }
  return done;
}

// Whether some pending job would start (or preempt) if tried now. When none would, every try of
// the ranked pass finds nothing, whatever the order (a try that finds nothing changes nothing), so
// the pass is these tries and the queue is not ranked: `out` gets their time_may_help. Else `out`
// gets only their decide() count, and the ranked pass tries the jobs in order: those found waiting
// here are skipped while the state is the same (Waiting), and tried again once a start changed it.
bool ShareqScheduler::any_may_start(PassOutcome& out) {
  PassOutcome probe;
  const auto& pending = state_.pending();  // not changed by a try that does not act
  bool may = false;
  for (size_t i = 0; i < pending.size() && !may; ++i) may = try_job(pending[i].id, probe, false);
  out.decisions += probe.decisions;
  if (!may) out.time_may_help = probe.time_may_help;
  return may;
}

// Whether the job's try is known to find nothing (its Waiting holds, or a job of its key found
// nothing at this state and now()); then `out` gets what that try would give.
bool ShareqScheduler::known_wait(policy::JobId id, const TryKey& key, PassOutcome& out) {
  const Waiting& waiting = waiting_[id - 1];
  if (waiting.generation == state_.generation() && state_.now() < waiting.until) {
    if (waiting.time_may_help) out.time_may_help = true;
    return true;
  }
  if (const Attempt* known = memo_.find(key, state_.generation(), state_.now())) {
    wait(id, *known, out);
    return true;
  }
  return false;
}

void ShareqScheduler::started(policy::JobId id, PassOutcome& out) {
  out.changed = true;
  exposure_stale_ = true;
  waiting_[id - 1] = Waiting{};
  const JobRun& run = state_.run(id);
  if (state_.policy().reclaim_min_runtime_s > 0) young_.push_back({run.start, id, run.epoch});
}

// A job whose last try found nothing to do finds nothing again while the ledger, the running jobs
// and the nodes are unchanged (state_.generation()) and no rule of time has turned: decide() and
// the scheduler's acts read only those, the job itself and now() (through ReclaimAfter, from the
// job's submission, and ReclaimMinRuntime, from the running jobs' starts). Such a try is skipped,
// with the same effect on the pass (time_may_help), so the results are the same; so is the try of
// a job whose key (try_memo.hpp) already found nothing at this state and now().
// With `act` false nothing is started or preempted: true says the try would have.
bool ShareqScheduler::try_job(policy::JobId id, PassOutcome& out, bool act) {
  if (!state_.eligible(id)) return false;  // in its BeginTime: left out of the pass
  const bool skip = tuning_.skip_known_waits;
  const policy::PendingJob& pending = state_.pending()[state_.run(id).slot];
  const auto& policy = state_.policy();
  const TryKey key = memo_.key(id, state_.now() - pending.submit_time >= policy.reclaim_after_s,
                               policy.in_share_preemption ? pending.priority : 0);
  if (skip && known_wait(id, key, out)) return false;
  const policy::PendingJob job = pending;  // a copy: a start reorders the pending jobs
  Attempt attempt;
  for (int r = 0; r < static_cast<int>(job.requests.size()); ++r) {
    if (!try_request(job, r, out, attempt, act)) continue;
    if (act) started(id, out);
    return true;
  }
  if (skip) memo_.remember(key, state_.generation(), state_.now(), attempt);
  wait(id, attempt, out);
  return false;
}

// The job waits after a try that found `attempt`: until when that holds (Waiting).
void ShareqScheduler::wait(policy::JobId id, const Attempt& attempt, PassOutcome& out) {
  if (attempt.time_may_help) out.time_may_help = true;
  const policy::PendingJob& job = state_.pending()[state_.run(id).slot];
  waiting_[id - 1] =
      Waiting{state_.generation(), wait_holds_until(job, attempt), attempt.time_may_help};
}

policy::Time ShareqScheduler::wait_holds_until(const policy::PendingJob& job,
                                               const Attempt& attempt) {
  const policy::Time now = state_.now();
  const policy::Time after = state_.policy().reclaim_after_s;
  policy::Time until = kNever;
  // reclaim_due turns true at submit_time + ReclaimAfter, and stays so.
  if (now - job.submit_time < after) {
    until = after > kNever - job.submit_time ? kNever : job.submit_time + after;
  }
  if (attempt.ages_matter) until = std::min(until, next_coming_of_age());
  return until;
}

// The first time after now() that a running job reaches ReclaimMinRuntime (kNever: none will
// before something starts).
policy::Time ShareqScheduler::next_coming_of_age() {
  const policy::Time min_runtime = state_.policy().reclaim_min_runtime_s;
  if (min_runtime <= 0) return kNever;
  while (!young_.empty()) {
    const StartedAt& front = young_.front();
    const JobRun& run = state_.run(front.id);
    const bool same_run = run.status == JobStatus::Running && run.epoch == front.epoch;
    if (!same_run || state_.now() - front.start >= min_runtime) {
      young_.pop_front();
      continue;
    }
    return front.start > kNever - min_runtime ? kNever : front.start + min_runtime;
  }
  return kNever;
}

bool ShareqScheduler::try_request(const policy::PendingJob& job, int request, PassOutcome& out,
                                  Attempt& attempt, bool act) {
  const policy::FamilyId family = job.requests[request].family;
  const ControllerView light{state_.ledger(), {}, {}, {}, 0};
  const ControllerView full{state_.ledger(), state_.running(), {}, {}, 0};
  const auto& ledger = state_.ledger();
  const bool within = ledger.usage(job.share, family) + job.requests[request].amount <=
                      ledger.quota(job.share, family);
  ++out.decisions;
  const Decision d = policy::decide(light, job, family, state_.now());
  if (d.verdict == Verdict::Start) {
    if (const auto nodes = state_.best_fit(job.id, request)) {
      if (act) state_.start(job.id, request, *nodes);
      return true;
    }
    if (!d.within_quota) return false;
    ++out.decisions;
    attempt.ages_matter = true;
    const Decision again = policy::decide(full, job, family, state_.now());
    return reclaim_to_fit(job.id, request, again.reclaim_to_fit, act);
  }
  if (!may_preempt(job, request, attempt)) return false;
  ++out.decisions;
  const Decision again = policy::decide(full, job, family, state_.now());
  // Reclaim (a within-quota job) reads the running jobs' run times; in-share preemption does not.
  if (within || again.within_quota) attempt.ages_matter = true;
  if (again.verdict == Verdict::Preempt)
    return preempt_and_start(job.id, request, again.victims, act);
  if (again.reason == WaitReason::ReclaimAfter || again.reason == WaitReason::ReclaimMinRuntime) {
    attempt.time_may_help = true;
  }
  return false;
}

// Whether decide() with the running jobs could name victims; false is exact (no candidate).
bool ShareqScheduler::may_preempt(const policy::PendingJob& job, int request, Attempt& attempt) {
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
    attempt.time_may_help = true;
    return false;
  }
  const auto& lowest = exposure_.lowest_in_share;
  return state_.policy().in_share_preemption && job.share < lowest.size() &&
         job.priority > lowest[job.share];
}

bool ShareqScheduler::preempt_and_start(policy::JobId id, int request,
                                        const std::vector<policy::Victim>& victims, bool act) {
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
  if (!nodes || !act) return nodes.has_value();
  for (const auto& v : victims) state_.requeue(v.id);
  state_.start(id, request, *nodes);
  return true;
}

bool ShareqScheduler::reclaim_to_fit(policy::JobId id, int request,
                                     const std::vector<policy::JobId>& candidates, bool act) {
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
  if (!nodes || !act) return nodes.has_value();
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
