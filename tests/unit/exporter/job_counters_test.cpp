// The counters from slurmdbd's runs: once per run, by the words that name the run, durable
// through the state file.
#include "job_counters.hpp"

#include <gtest/gtest.h>

#include "../test_configs.hpp"
#include "counter_state_file.hpp"

namespace shareq::exporter {
namespace {

const policy::Policy kPolicy =
    policy::Policy::compile(shareq::testing::must_parse(shareq::testing::kClusterConf));

constexpr int64_t kT0 = 1'000'000;

JobRun run(uint32_t id, std::string account, int64_t submit, int64_t start, int64_t end,
           RunEnd state, std::string comment = "") {
  return {id, std::move(account), "p5", std::move(comment), submit, start, end, state};
}

TEST(JobCounters, APreemptedRunCountsOnceAndItsRequeuedRunDoesNot) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);  // a fresh state counts from kT0
  const std::string word =
      "shareq:share=prodexp2 shareq-preempted:reclaim,by:9,run:" + std::to_string(kT0 + 10);
  std::vector<JobRun> runs = {
      run(4, "prodexp2", kT0 + 1, kT0 + 10, kT0 + 40, RunEnd::Preempted, word),
      run(4, "prodexp2", kT0 + 40, kT0 + 50, 0, RunEnd::None, word)};
  count_runs(state, kPolicy, runs, kT0 + 60);
  count_runs(state, kPolicy, runs, kT0 + 70);  // the same records again: nothing more
  runs[1].end = kT0 + 80;
  runs[1].state = RunEnd::Completed;
  count_runs(state, kPolicy, runs, kT0 + 90);  // the second run ends: not a preemption
  const LabelTriple key{"p5", "prodexp2", "reclaim"};
  ASSERT_EQ(state.preemptions.size(), 1u);
  EXPECT_EQ(state.preemptions.at(key), 1u);
  EXPECT_TRUE(state.failures.empty());
  const HistogramData& waits = state.waits.at({"p5", "prodexp2"});
  EXPECT_EQ(waits.count, 2u);  // both runs started
  EXPECT_EQ(waits.sum, 9 + 10);
}

TEST(JobCounters, APendingRecordsExpectedStartIsNoStart) {
  // slurmdbd keeps slurmctld's start_time for a pending job: the backfill's expected start, here
  // far ahead. Counted, it was a wait of years in the histogram, and the real start a second run.
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  std::vector<JobRun> runs = {run(5, "research", kT0 + 1, kT0 + 700'000'000, 0, RunEnd::None)};
  count_runs(state, kPolicy, runs, kT0 + 60);
  EXPECT_TRUE(state.waits.empty());
  runs[0].start = kT0 + 70;  // it starts
  count_runs(state, kPolicy, runs, kT0 + 80);
  const HistogramData& waits = state.waits.at({"p5", "research"});
  EXPECT_EQ(waits.count, 1u);
  EXPECT_EQ(waits.sum, 69);
}

TEST(JobCounters, WarmAndColdStartsByTheWordOfTheirRun) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  const std::string start1 = std::to_string(kT0 + 5);
  const std::string start2 = std::to_string(kT0 + 30);
  const std::vector<JobRun> runs = {
      run(1, "research", kT0, kT0 + 5, kT0 + 20, RunEnd::Completed,
          "shareq-start:cold,at:" + start1),
      run(2, "research", kT0 + 21, kT0 + 30, kT0 + 50, RunEnd::Completed,
          "shareq-warm-start:wp-1 shareq-start:warm,at:" + start2),
      // An older run's word does not count for this one.
      run(3, "research", kT0 + 21, kT0 + 31, kT0 + 50, RunEnd::Completed,
          "shareq-start:warm,at:" + start2)};
  count_runs(state, kPolicy, runs, kT0 + 60);
  EXPECT_EQ(state.warm_starts.at({"p5", "cold"}), 1u);
  EXPECT_EQ(state.warm_starts.at({"p5", "warm"}), 1u);
}

TEST(JobCounters, AFallbackCountsWhenItsRunStartsAndOnlyForThatRun) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  const std::string word = "shareq-fallback:saturated,from:p5,at:" + std::to_string(kT0 + 20);
  JobRun fell_back = run(6, "prodexp2", kT0, kT0 + 20, 0, RunEnd::None, word);
  fell_back.partition = "p4";
  JobRun later_run = fell_back;  // requeued, its next run at home: the old word is not its own
  later_run.start = kT0 + 50;
  later_run.partition = "p5";
  count_runs(state, kPolicy, std::vector<JobRun>{fell_back}, kT0 + 30);
  count_runs(state, kPolicy, std::vector<JobRun>{fell_back, later_run}, kT0 + 60);
  ASSERT_EQ(state.fallbacks.size(), 1u);
  EXPECT_EQ(state.fallbacks.at({"p5", "p4", "saturated"}), 1u);
  const auto text = format_counter_state(state);
  EXPECT_NE(text.find("fallback\tp5\tp4\tsaturated\t1\n"), std::string::npos) << text;
  const Result<CounterState> parsed = parse_counter_state(text);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed.value().fallbacks, state.fallbacks);
}

TEST(JobCounters, AFallbackAfterAFailedRunCountsWithItsCause) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  std::vector<JobRun> runs;
  for (const char* cause : {"node_fail", "prolog", "melted"}) {
    JobRun r =
        run(7 + static_cast<uint32_t>(runs.size()), "prodexp2", kT0, kT0 + 20, 0, RunEnd::None,
            std::string("shareq-fallback:") + cause + ",from:p5,at:" + std::to_string(kT0 + 20));
    r.partition = "p4";
    runs.push_back(r);
  }
  count_runs(state, kPolicy, runs, kT0 + 30);
  EXPECT_EQ(state.fallbacks.size(), 2u);
  EXPECT_EQ(state.fallbacks.at({"p5", "p4", "node_fail"}), 1u);
  EXPECT_EQ(state.fallbacks.at({"p5", "p4", "prolog"}), 1u);
}

TEST(JobCounters, FailuresByFinalState) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  count_runs(state, kPolicy,
             std::vector<JobRun>{run(1, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::NodeFail),
                                 run(2, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Failed),
                                 run(3, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Timeout),
                                 run(4, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Requeued),
                                 run(5, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Cancelled),
                                 run(6, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Completed)},
             kT0 + 10);
  EXPECT_EQ(state.failures.size(), 4u);
  for (const char* cause : {"node_fail", "failed", "timeout", "prolog"}) {
    EXPECT_EQ(state.failures.at({"p5", "research", cause}), 1u) << cause;
  }
}

TEST(JobCounters, RunsBeforeTheFirstPassOrOutsideEveryFamilyAreNotCounted) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  JobRun outside = run(2, "research", kT0, kT0 + 1, kT0 + 2, RunEnd::Failed);
  outside.partition = "debug";
  count_runs(state, kPolicy,
             std::vector<JobRun>{run(1, "research", kT0 - 50, kT0 - 40, kT0 - 30, RunEnd::Failed),
                                 outside},
             kT0 + 10);
  EXPECT_TRUE(state.failures.empty());
  EXPECT_TRUE(state.waits.empty());
}

TEST(JobCounters, ALateRecordWithinTheLookbackCountsOnce) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  count_runs(state, kPolicy, {}, kT0 + 100);  // the record was not in slurmdbd yet
  EXPECT_EQ(query_start(state, kT0 + 200, 600), kT0);
  const std::vector<JobRun> late = {run(1, "research", kT0, kT0 + 50, kT0 + 90, RunEnd::Failed)};
  count_runs(state, kPolicy, late, kT0 + 200);
  count_runs(state, kPolicy, late, kT0 + 300);
  EXPECT_EQ(state.failures.at({"p5", "research", "failed"}), 1u);
}

TEST(JobCounters, AStillRunningJobStartedBeforeTheWindowIsNotCountedAgain) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  const std::vector<JobRun> running = {run(1, "research", kT0, kT0 + 5, 0, RunEnd::None)};
  count_runs(state, kPolicy, running, kT0 + 10);
  count_runs(state, kPolicy, running, kT0 + 2000);  // its key was forgotten after the lookback
  count_runs(state, kPolicy, running, kT0 + 3000);
  EXPECT_EQ(state.waits.at({"p5", "research"}).count, 1u);
}

TEST(CounterStateFile, RoundTripsEveryRecord) {
  CounterState state;
  count_runs(state, kPolicy, {}, kT0);
  count_runs(
      state, kPolicy,
      std::vector<JobRun>{run(1, "research", kT0, kT0 + 5, kT0 + 9, RunEnd::Timeout,
                              "shareq-preempted:in_share,by:3,run:" + std::to_string(kT0 + 5) +
                                  " shareq-start:cold,at:" + std::to_string(kT0 + 5)),
                          run(2, "prodexp2", kT0, kT0 + 7, 0, RunEnd::None)},
      kT0 + 10);
  const std::string text = format_counter_state(state);
  const Result<CounterState> parsed = parse_counter_state(text);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(format_counter_state(parsed.value()), text);
  EXPECT_EQ(parsed.value().preemptions.at({"p5", "research", "in_share"}), 1u);
  EXPECT_EQ(parsed.value().waits.at({"p5", "prodexp2"}).sum, 7);
}

TEST(CounterStateFile, ADamagedFileIsAnErrorNamingTheLine) {
  const Result<CounterState> wrong_header = parse_counter_state("hello\n");
  ASSERT_FALSE(wrong_header);
  EXPECT_EQ(wrong_header.error().field, "line 1");
  const Result<CounterState> bad =
      parse_counter_state("shareq-exporter-counters\t1\nsince\t5\nwarm\tp5\tcold\tmany\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "line 3: expected warm FAMILY RESULT N");
  EXPECT_FALSE(parse_counter_state(""));
}

}  // namespace
}  // namespace shareq::exporter
