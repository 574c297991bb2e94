#include "job_counters.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "cluster_state.hpp"
#include "policy/run_words.hpp"
#include "text.hpp"

namespace shareq::exporter {
namespace {

constexpr std::array<double, 14> kWaitBuckets = {1,   5,    10,   30,   60,    120,   300,
                                                 600, 1800, 3600, 7200, 14400, 43200, 86400};

std::optional<std::string> failure_cause(RunEnd state, bool preempted) {
  switch (state) {
    case RunEnd::NodeFail:
      return "node_fail";
    case RunEnd::Failed:
      return "failed";
    case RunEnd::Timeout:
      return "timeout";
    case RunEnd::Requeued:
      return preempted ? std::nullopt : std::optional<std::string>("prolog");
    default:
      return std::nullopt;
  }
}

void count_end(CounterState& state, const JobRun& run, const std::string& family,
               const std::string& share) {
  const auto reason = policy::run_word_kind(run.admin_comment, policy::kPreemptedWord, run.start);
  if (reason && (*reason == "reclaim" || *reason == "in_share")) {
    ++state.preemptions[{family, share, std::string(*reason)}];
  }
  if (const auto cause = failure_cause(run.state, reason.has_value())) {
    ++state.failures[{family, share, *cause}];
  }
  const auto result = policy::run_word_kind(run.admin_comment, policy::kStartWord, run.start);
  if (result && (*result == "warm" || *result == "cold")) {
    ++state.warm_starts[{family, std::string(*result)}];
  }
}

// A run that started in a fallback family counts when it starts (its AdminComment names it
// then; slurmdbd has it by the start of the run's record).
void count_fallback(CounterState& state, const JobRun& run, const std::string& family) {
  const auto fields = policy::run_word_fields(run.admin_comment, policy::kFallbackWord, run.start);
  if (!fields) return;
  const auto from = policy::word_field(*fields, "from");
  const std::string_view cause = fields->substr(0, fields->find(','));
  const bool known = cause == "saturated" || cause == "node_fail" || cause == "prolog";
  if (!from || from->empty() || !known) return;
  ++state.fallbacks[{std::string(*from), family, std::string(cause)}];
}

void forget_before(std::map<RunKey, int64_t>& keys, int64_t oldest) {
  std::erase_if(keys, [&](const auto& entry) { return entry.second < oldest; });
}

}  // namespace

std::span<const double> wait_buckets() { return kWaitBuckets; }

int64_t query_start(const CounterState& state, int64_t now, int64_t lookback) {
  if (state.since == 0) return now;
  return std::max(state.since, state.watermark - lookback);
}

void count_runs(CounterState& state, const policy::Policy& policy, std::span<const JobRun> runs,
                int64_t now, int64_t lookback) {
  if (state.since == 0) state.since = state.watermark = now;
  const int64_t oldest = query_start(state, now, lookback);
  for (const JobRun& run : runs) {
    // A pending job's record holds the start the scheduler expects (slurmdbd stores slurmctld's
    // start_time as it is, the backfill's plan for a pending job), not a start.
    if (run.start <= 0 || run.start > now) continue;
    const auto family_id = policy.family_of_partition(run.partition);
    if (!family_id) continue;
    const std::string family = policy.family(*family_id).name;
    tool::JobInfo info;
    info.id = run.id;
    info.account = run.account;
    info.partitions = {run.partition};
    info.admin_comment = run.admin_comment;
    const std::string share = tool::share_name_of(policy, info);
    const RunKey key{run.id, run.start};
    if (run.start >= oldest && state.started.emplace(key, run.start).second) {
      auto [it, fresh] = state.waits.try_emplace({family, share}, empty_histogram(kWaitBuckets));
      observe(it->second, static_cast<double>(std::max<int64_t>(0, run.start - run.submit)));
      count_fallback(state, run, family);
    }
    if (run.end > 0 && run.state != RunEnd::None && run.end >= oldest &&
        state.ended.emplace(key, run.end).second) {
      count_end(state, run, family, share);
    }
  }
  state.watermark = std::max(state.watermark, now);
  forget_before(state.started, state.watermark - lookback);
  forget_before(state.ended, state.watermark - lookback);
}

std::vector<MetricFamily> counter_metrics(const CounterState& state) {
  MetricFamily preemptions{"shareq_preemptions_total",
                           "Runs of the share's jobs preempted, by reason (reclaim: a share took "
                           "back its quota; in_share: a job of the same share with a higher "
                           "priority).",
                           MetricType::Counter,
                           {}};
  for (const auto& [key, n] : state.preemptions) {
    const auto& [family, share, reason] = key;
    preemptions.samples.push_back(
        {{{"family", family}, {"share", share}, {"reason", reason}}, static_cast<double>(n), ""});
  }
  MetricFamily waits{"shareq_job_wait_seconds",
                     "Seconds from submission to start of the share's job runs that started.",
                     MetricType::Histogram,
                     {}};
  for (const auto& [key, data] : state.waits) {
    add_histogram(waits, {{"family", key.first}, {"share", key.second}}, data);
  }
  MetricFamily failures{"shareq_job_failures_total",
                        "Runs of the share's jobs that ended badly, by cause (node_fail, prolog, "
                        "failed, timeout).",
                        MetricType::Counter,
                        {}};
  for (const auto& [key, n] : state.failures) {
    const auto& [family, share, cause] = key;
    failures.samples.push_back(
        {{{"family", family}, {"share", share}, {"cause", cause}}, static_cast<double>(n), ""});
  }
  MetricFamily warm{"shareq_warm_starts_total",
                    "Runs that started on a warm pool (warm) or, with --image or --keep-alive, "
                    "on none (cold); counted when the run ends.",
                    MetricType::Counter,
                    {}};
  for (const auto& [key, n] : state.warm_starts) {
    warm.samples.push_back(
        {{{"family", key.first}, {"result", key.second}}, static_cast<double>(n), ""});
  }
  MetricFamily fallbacks{"shareq_fallbacks_total",
                         "Runs that started in a Fallback= family of their home family (from) "
                         "instead of it, by cause (saturated: it waited FallbackDelay; node_fail, "
                         "prolog: its last run failed so, and it fell back at once).",
                         MetricType::Counter,
                         {}};
  for (const auto& [key, n] : state.fallbacks) {
    const auto& [from, to, cause] = key;
    fallbacks.samples.push_back(
        {{{"from", from}, {"to", to}, {"cause", cause}}, static_cast<double>(n), ""});
  }
  return {preemptions, waits, failures, warm, fallbacks};
}

}  // namespace shareq::exporter
