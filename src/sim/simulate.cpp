#include "sim/simulate.hpp"

#include "sim/cadence.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace shareq::sim {
namespace {

template <typename Scheduler>
void run_pass(Scheduler& scheduler, const PassBounds& bounds, PassOutcome& pass, SimResult& out) {
  pass = scheduler.pass(bounds);
  ++out.passes;
  out.decisions += pass.decisions;
}

template <typename Scheduler>
void replay(SimState& state, Scheduler& scheduler, const SimOptions& options, SimResult& out) {
  Cadence cadence(options.scheduler);
  policy::Time wake = kNoWake;
  while (state.advance(wake)) {
    const uint64_t generation = state.generation();   // a job end bumps it; a submission not
    const uint64_t queue = state.queue_generation();  // each of those, and a BeginTime reached
    const size_t pending = state.pending().size();
    state.apply_events();
    const bool ended = state.generation() != generation;
    const bool submitted = state.pending().size() > pending;
    if (!ended && !submitted && state.queue_generation() != queue) cadence.job_eligible();
    PassOutcome pass;
    const auto main = cadence.main_due(state.now(), ended, submitted, !state.pending().empty());
    if (main) {
      run_pass(scheduler, *main, pass, out);
      cadence.main_ran(pass);
    }
    if (const auto backfill = cadence.backfill_due(state.now(), state.pending().size())) {
      run_pass(scheduler, *backfill, pass, out);
      cadence.backfill_ran(pass);
    }
    wake = cadence.next_wake(state.now(), !state.pending().empty());
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
                      0,
                      0};
    for (policy::ShareId sh = 0; sh < policy.share_count(); ++sh) {
      const PairSeconds& p = state.meter().pair(sh, f);
      const Tally& t = by_pair[sh * families + f];
      fig.borrowed_gpu_hours += hours(p.borrowed);
      fig.lost_gpu_hours += hours(p.lost);
      if (policy.rule(sh, f) == nullptr && t.waits.empty() && t.preempted == 0) continue;
      out.shares.push_back({policy.share_name(sh), policy.family(f).name, policy.quota(sh, f),
                            policy.family(f).unit, p.could > 0 ? p.busy / p.could : 0,
                            static_cast<int64_t>(t.waits.size()), wait_figures(t.waits),
                            t.preempted, hours(p.busy), hours(p.borrowed), hours(p.lost)});
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
  out.label = kind == SchedulerKind::Shareq ? "shareq"
              : kind == SchedulerKind::Fifo ? "fifo"
                                            : "stock";
  out.dropped = workload.dropped;
  out.jobs_replayed = static_cast<int64_t>(workload.jobs.size());
  SimState state(workload, policy, options.requeue_hold_s);
  if (kind == SchedulerKind::Shareq) {
    ShareqScheduler scheduler(state, options.tuning);
    replay(state, scheduler, options, out);
  } else if (kind == SchedulerKind::Stock) {
    StockScheduler scheduler(state, options.stock);
    replay(state, scheduler, options, out);
  } else {
    FifoScheduler scheduler(state);
    replay(state, scheduler, options, out);
  }
  summarise(state, cluster, trace, options, out);
  return out;
}

}  // namespace shareq::sim
