// The exporter's counters, from slurmdbd's job records (one record per run of a job, as
// `sacct -D` shows them), counted once per run and kept in a CounterState that the exporter
// saves in its state directory, so they never go backwards across restarts.
//
// What marks a run (the controller plugins write these words in the job's AdminComment, which
// slurmctld sends to slurmdbd when the run ends; in 22.05 SystemComment never reaches slurmdbd):
//   shareq-start:warm,at:T      the run that started at T started on a warm pool
//   shareq-start:cold,at:T      it started cold (it had --image or --keep-alive, no pool matched)
//   shareq-preempted:R,by:N,run:T   the run that started at T was preempted by job N for reason
//                               R (reclaim or in_share)
//   shareq-fallback:C,from:F,at:T   the run that started at T started in a fallback family of
//                               its home family F, for cause C (saturated: it waited
//                               FallbackDelay; node_fail or prolog: its last run failed so)
// A job's AdminComment keeps the words of its earlier runs (a requeued job), so a word counts
// only for the run whose start time it names.
//
// When a run counts:
//  - shareq_job_wait_seconds: when it has started (its record has a start time): start - submit;
//  - the others when it has ended: preemptions by their word; shareq_job_failures_total by the
//    run's final state (NODE_FAIL and BOOT_FAIL: node_fail; FAILED: failed; TIMEOUT: timeout;
//    REQUEUED without a preemption, which is how Slurm ends a run whose prolog or launch failed:
//    prolog); warm starts and fallbacks by their word.
// Family: the run's partition's family; share: policy::share_of, as `shareq status` names it.
// Runs in no family are not counted.
//
// Incremental: each pass looks at the runs that started or ended since `watermark - lookback`
// and remembers which runs it counted in that window (the keys), so a record that reaches
// slurmdbd late (up to `lookback` seconds) still counts, and once only.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "exposition.hpp"
#include "policy/policy.hpp"

namespace shareq::exporter {

// How a run ended, from slurmdbd's job state.
enum class RunEnd {
  None,
  Completed,
  Cancelled,
  Failed,
  Timeout,
  NodeFail,
  Preempted,
  Requeued,
  Other
};

// One run of a job as slurmdbd records it (slurmdb_job_rec_t), in plain values.
struct JobRun {
  uint32_t id = 0;
  std::string account;
  std::string partition;      // where it ran
  std::string admin_comment;  // job_submit's tag, then the plugins' words
  int64_t submit = 0;
  int64_t start = 0;  // 0: never started
  int64_t end = 0;    // 0: not ended
  RunEnd state = RunEnd::None;
};

// A run: its job and when it started (one job's runs start at different times).
struct RunKey {
  uint32_t id = 0;
  int64_t start = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  auto operator<=>(const RunKey&) const = default;
};

using FamilyShare = std::pair<std::string, std::string>;
using LabelTriple = std::tuple<std::string, std::string, std::string>;  // family, share/-, value

struct CounterState {
  int64_t since = 0;      // the first pass: runs that started or ended before are not counted
  int64_t watermark = 0;  // the last pass
  std::map<RunKey, int64_t> started;            // runs counted as started, with their start time
  std::map<RunKey, int64_t> ended;              // runs counted as ended, with their end time
  std::map<LabelTriple, uint64_t> preemptions;  // family, share, reason
  std::map<LabelTriple, uint64_t> failures;     // family, share, cause
  std::map<FamilyShare, uint64_t> warm_starts;  // family, result (warm or cold)
  std::map<LabelTriple, uint64_t> fallbacks;    // from (home family), to, cause
  std::map<FamilyShare, HistogramData> waits;   // family, share
};

// The buckets of shareq_job_wait_seconds (upper bounds, seconds).
std::span<const double> wait_buckets();

// How far back a pass looks for records that reached slurmdbd late, seconds.
inline constexpr int64_t kDefaultLookback = 600;

// The window of records a pass must see: runs that started or ended at or after this.
int64_t query_start(const CounterState& state, int64_t now, int64_t lookback);

// Counts `runs` (what slurmdbd returned for query_start(..)..now) into `state`, then moves the
// watermark to `now` and forgets keys older than the window. A fresh state (since == 0) starts
// counting at `now`.
void count_runs(CounterState& state, const policy::Policy& policy, std::span<const JobRun> runs,
                int64_t now, int64_t lookback = kDefaultLookback);

// shareq_preemptions_total, shareq_job_wait_seconds, shareq_job_failures_total,
// shareq_warm_starts_total, shareq_fallbacks_total.
std::vector<MetricFamily> counter_metrics(const CounterState& state);

}  // namespace shareq::exporter
