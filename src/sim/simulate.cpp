#include "sim/simulate.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace shareq::sim {
namespace {

constexpr policy::Time kNever = std::numeric_limits<policy::Time>::max();

template <typename Scheduler>
void replay(SimState& state, Scheduler& scheduler, const SimOptions& options, SimResult& out) {
  policy::Time pass_at = kNever;
  // submit_delay_s > 0: an instant with submissions and no job end gets its pass at the earliest
  // submit_delay_s after the last pass not triggered by a job end (submit_pass_at); until then
  // the submitted jobs wait. last_timed starts far enough back that the first submission passes.
  policy::Time submit_pass_at = kNever;
  policy::Time last_timed = std::numeric_limits<policy::Time>::min() / 2;
  while (state.advance(std::min(pass_at, submit_pass_at))) {
    const uint64_t generation = state.generation();  // a job end bumps it; a submission not
    const bool events = state.apply_events();
    const bool ended = state.generation() != generation;
    const bool timed = state.now() >= pass_at || state.now() >= submit_pass_at;
    if (!events && !timed) continue;
    if (events && !ended && !timed && options.submit_delay_s > 0) {
      submit_pass_at =
          std::min(submit_pass_at, std::max(state.now(), last_timed + options.submit_delay_s));
      if (state.now() < submit_pass_at) continue;
    }
    if (!ended) last_timed = state.now();
    submit_pass_at = kNever;  // this pass sees every job submitted so far
    const PassOutcome pass = scheduler.pass();
    ++out.passes;
    out.decisions += pass.decisions;
    const bool again = !state.pending().empty() && (pass.changed || pass.time_may_help);
    pass_at = again ? state.now() + std::max<int64_t>(1, options.sched_interval_s) : kNever;
  }
  state.finish_metering();
}

double hours(double seconds) { return seconds / 3600.0; }

WaitFigures wait_figures(std::vector<int64_t> waits) {
  std::sort(waits.begin(), waits.end());
  return {percentile(waits, 50), percentile(waits, 90), waits.empty() ? 0 : waits.back()};
}

struct Tally {
  std::vector<int64_t> waits;
  int64_t preempted = 0;
};

void summarise(const SimState& state, const SlurmCluster& cluster, const Trace& trace,
               const SimOptions& options, SimResult& out) {
  const auto& policy = state.policy();
  const size_t families = policy.family_count();
  std::vector<Tally> by_family(families), by_pair(policy.share_count() * families);
  for (const SimJob& job : state.workload().jobs) {
    const JobRun& run = state.run(job.id);
    const policy::FamilyId f = job.requests[std::max(run.request, 0)].family;
    Tally& pair = by_pair[job.share * families + f];
    pair.preempted += run.preempted;
    by_family[f].preempted += run.preempted;
    if (run.status == JobStatus::Done) {
      pair.waits.push_back(run.start - run.first_submit);
      by_family[f].waits.push_back(run.start - run.first_submit);
      out.span_s = std::max(out.span_s, run.end);
    } else {
      ++out.never_started;
    }
    if (!options.keep_jobs) continue;
    JobRecord record{trace.jobs[job.trace_index].id,
                     policy.share_name(job.share),
                     "",
                     run.first_submit,
                     run.start,
                     run.end,
                     -1,
                     run.preempted,
                     ""};
    if (run.status == JobStatus::Done) {
      record.family = policy.family(f).name;
      record.wait = run.start - run.first_submit;
      for (int n : run.nodes)
        record.nodes += (record.nodes.empty() ? "" : ",") + cluster.nodes[n].name;
    }
    out.jobs.push_back(std::move(record));
  }
  for (policy::FamilyId f = 0; f < families; ++f) {
    const FamilySeconds& s = state.meter().family(f);
    FamilyFigures fig{policy.family(f).name,
                      state.workload().family_gpus[f],
                      s.fillable > 0 ? s.busy / s.fillable : 0,
                      s.placeable > 0 ? s.busy / s.placeable : 0,
                      static_cast<int64_t>(by_family[f].waits.size()),
                      wait_figures(by_family[f].waits),
                      by_family[f].preempted,
                      hours(s.busy),
                      0};
    for (policy::ShareId sh = 0; sh < policy.share_count(); ++sh) {
      const PairSeconds& p = state.meter().pair(sh, f);
      const Tally& t = by_pair[sh * families + f];
      fig.borrowed_gpu_hours += hours(p.borrowed);
      if (policy.rule(sh, f) == nullptr && t.waits.empty() && t.preempted == 0) continue;
      out.shares.push_back({policy.share_name(sh), policy.family(f).name, policy.quota(sh, f),
                            policy.family(f).unit, p.could > 0 ? p.busy / p.could : 0,
                            static_cast<int64_t>(t.waits.size()), wait_figures(t.waits),
                            t.preempted, hours(p.busy), hours(p.borrowed)});
    }
    out.families.push_back(fig);
  }
}

}  // namespace

int64_t percentile(const std::vector<int64_t>& sorted, int percent) {
  if (sorted.empty()) return 0;
  size_t rank = (sorted.size() * static_cast<size_t>(percent) + 99) / 100;
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

SimResult simulate(const Trace& trace, const Workload& workload, const SlurmCluster& cluster,
                   const policy::Policy& policy, SchedulerKind kind, const SimOptions& options) {
  SimResult out;
  out.label = kind == SchedulerKind::Shareq ? "shareq" : "fifo";
  out.dropped = workload.dropped;
  out.jobs_replayed = static_cast<int64_t>(workload.jobs.size());
  SimState state(workload, policy);
  if (kind == SchedulerKind::Shareq) {
    ShareqScheduler scheduler(state, options.tuning);
    replay(state, scheduler, options, out);
  } else {
    FifoScheduler scheduler(state);
    replay(state, scheduler, options, out);
  }
  summarise(state, cluster, trace, options, out);
  return out;
}

}  // namespace shareq::sim
