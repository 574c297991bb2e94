// shareq why from plain job data: the explanation the policy core gives.
#include "why_report.hpp"

#include <gtest/gtest.h>

#include "../test_configs.hpp"
#include "table.hpp"
#include "tool_builders.hpp"

namespace shareq::tool {
namespace {

using testing::Job;

const Config kConfig =
    shareq::testing::must_parse(testing::kReportFamilies + "ReclaimMinRuntime=600\n");
constexpr int64_t kNow = testing::kReportNow;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Why, BorrowerInAFullFamilyNamesEveryFigure) {
  const ClusterState state(
      kConfig,
      {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 50),
       // priority 90: not an in-share victim for the priority-80 job
       Job(2).share("research").priority(90).gpus(10).partitions({"p5"}).running(kNow - 50),
       Job(3).share("research").priority(80).gpus(4).partitions({"p5"}).pending()});
  EXPECT_EQ(wait_sentence(state, *state.pending_job(3), 0, 4, kNow),
            "family p5 is at capacity: 32/32 GPUs; share research holds 10 of its quota 10; "
            "4 GPUs would be borrowed, BorrowLimit 16; nothing idle to borrow: it waits for jobs "
            "to end");
  const std::string text = explain_job(state, 3, kNow);
  EXPECT_TRUE(has(text, "job 3: PENDING, user alice, share research, priority 80\n")) << text;
  EXPECT_TRUE(has(text, "family p5:    asks 4 GPUs, would borrow\n")) << text;
  EXPECT_TRUE(has(text, "order:      1st of 1 pending jobs in p5")) << text;
}

TEST(Why, WithinQuotaJobReclaimsTheBorrowedJob) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 5000),
                Job(2).share("prodexp2").gpus(8).partitions({"p5"}).running(kNow - 5000),
                Job(3).share("research").gpus(2).partitions({"p5"}).running(kNow - 50),
                Job(4).share("research").gpus(8).partitions({"p5"}).pending()});
  EXPECT_EQ(wait_sentence(state, *state.pending_job(4), 0, 8, kNow),
            "family p5 is at capacity: 32/32 GPUs; share research holds 2 of its quota 10; the "
            "job (8 GPUs) fits in its quota; reclaim would requeue borrowed job 2 (should start "
            "at the next scheduling pass)");
}

// Family p5 full; prodexp2 borrows 8 GPUs with job 2 (started at `borrowed_since`); research's
// job 4 (8 GPUs, submitted at `submitted`) is within its quota. What shareq why says of job 4.
std::string within_quota_job_waits(int64_t borrowed_since, int64_t submitted) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 5000),
                Job(2).share("prodexp2").gpus(8).partitions({"p5"}).running(borrowed_since),
                Job(3).share("research").gpus(2).partitions({"p5"}).running(kNow - 50),
                Job(4).share("research").gpus(8).partitions({"p5"}).pending(submitted)});
  return wait_sentence(state, *state.pending_job(4), 0, 8, kNow);
}

TEST(Why, WithinQuotaJobWaitsForReclaimMinRuntimeAndSaysUntilWhen) {
  const std::string sentence = within_quota_job_waits(kNow - 100, 0);
  EXPECT_TRUE(has(sentence,
                  "borrowed jobs run less than ReclaimMinRuntime=600s; the first can "
                  "be reclaimed at " +
                      local_time_text(kNow + 500) + " (in 8m 20s)"))
      << sentence;
}

TEST(Why, WithinQuotaJobWaitsReclaimAfterForCapacityAndSaysUntilWhen) {
  const std::string sentence = within_quota_job_waits(kNow - 5000, kNow - 20);
  EXPECT_TRUE(has(sentence,
                  "it waits up to ReclaimAfter=60s for capacity to come free by itself; it may "
                  "reclaim borrowed capacity from " +
                      local_time_text(kNow + 40) + " (in 40s)"))
      << sentence;
}

TEST(Why, PlaceInOrderFollowsSlurmPriorityThenJobId) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(32).partitions({"p5"}).running(kNow - 50),
                Job(2).share("research").gpus(4).partitions({"p5"}).slurm_priority(500).pending(),
                Job(3).share("prodexp2").gpus(4).partitions({"p5"}).slurm_priority(900).pending(),
                Job(4).share("research").gpus(4).partitions({"p5"}).slurm_priority(500).pending(),
                Job(5).share("research").gpus(4).partitions({"p5"}).slurm_priority(100).pending(),
                Job(6).share("research").gpus(4).partitions({"p5"}).pending().slurm_priority(0)});
  const std::string text = explain_job(state, 4, kNow);
  EXPECT_TRUE(has(text,
                  "3rd of 4 pending jobs in p5 (Slurm priority 500); ahead: 3 (prodexp2), "
                  "2 (research)"))
      << text;
  EXPECT_TRUE(has(explain_job(state, 6, kNow), "held (Slurm priority 0)"));
}

TEST(Why, EveryFamilyOfAMultiPartitionJob) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(8).nodes(1).partitions({"p5", "p4"}).pending()});
  const std::string text = explain_job(state, 1, kNow);
  EXPECT_TRUE(has(text, "family p5:    asks 8 GPUs, within its share's quota\n")) << text;
  EXPECT_TRUE(has(text, "family p4:    asks 1 node, within its share's quota\n")) << text;
  EXPECT_TRUE(has(text, "it fits now, nothing to preempt")) << text;
}

TEST(Why, NoQuotaInAFamilySaysSo) {
  const ClusterState state(kConfig,
                           {Job(1).share("research").nodes(1).partitions({"p4"}).pending()});
  const std::string text = explain_job(state, 1, kNow);
  EXPECT_TRUE(has(text, "waits for:  share research has no quota in family p4")) << text;
}

TEST(Why, RunningBorrowedJobCanBeReclaimedAfterMinRuntime) {
  const ClusterState state(
      kConfig,
      {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 5000, "p5n[1-3]"),
       Job(2).share("prodexp2").priority(30).gpus(8).partitions({"p5"}).running(kNow - 100, "p5n4"),
       Job(3)
           .share("research")
           .gpus(2)
           .partitions({"p5"})
           .running(kNow - 50)
           .comment("shareq: warm start on wp-3 (origin job 9, key any)")});
  const std::string borrowed = explain_job(state, 2, kNow);
  EXPECT_TRUE(has(borrowed, "runs on:      p5n4 (partition p5, family p5), 8 GPUs")) << borrowed;
  EXPECT_TRUE(has(borrowed,
                  "share:        prodexp2 holds 30 of its quota 22 in p5: borrowing "
                  "8 GPUs\n"))
      << borrowed;
  EXPECT_TRUE(has(borrowed,
                  "reclaim:      yes: it borrows, so a share under its quota may "
                  "requeue it from " +
                      local_time_text(kNow + 500)))
      << borrowed;
  EXPECT_TRUE(has(explain_job(state, 1, kNow), "reclaim:      not this job"));
  const std::string within = explain_job(state, 3, kNow);
  EXPECT_TRUE(has(within, "reclaim:      no: its share is within its quota")) << within;
  EXPECT_TRUE(has(within, "comment:      shareq: warm start on wp-3")) << within;
}

TEST(Why, AJobOfAnUnlistedAccountWaitsForIdleCapacity) {
  const ClusterState state(
      kConfig, {Job(1).share("prodexp2").gpus(22).partitions({"p5"}).running(kNow - 900),
                Job(2).share("research").gpus(10).partitions({"p5"}).running(kNow - 900),
                Job(3).share("physics").gpus(8).partitions({"p5"}).pending().reason("Priority")});
  const std::string text = explain_job(state, 3, kNow);
  EXPECT_TRUE(has(text, "share (unlisted) (account physics)")) << text;
  EXPECT_TRUE(has(text, "account in no share, runs only on idle capacity")) << text;
}

TEST(Why, JobShareqDoesNotGovern) {
  const ClusterState state(
      shareq::testing::must_parse("Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
                                  "Share=Research Family=p5 Quota=gres/gpu=32\n"
                                  "UnlistedAccounts=refuse\n"),
      {Job(1).share("other").gpus(8).partitions({"p5"}).pending().reason("Priority")});
  const std::string text = explain_job(state, 1, kNow);
  EXPECT_TRUE(has(text, "shareq:       does not govern this job")) << text;
  EXPECT_TRUE(has(text, "reason:       Priority")) << text;
}

// --- JOBID: a job, an array task, and what else users type ------------------------------------

TEST(WhyOperand, JobIdsAndArrayTasks) {
  EXPECT_EQ(parse_job_operand("5").value(), (JobOperand{5, std::nullopt}));
  EXPECT_EQ(parse_job_operand("4294967295").value(), (JobOperand{4294967295U, std::nullopt}));
  EXPECT_EQ(parse_job_operand("5_1").value(), (JobOperand{5, 1U}));
  EXPECT_EQ(parse_job_operand("5_0").value(), (JobOperand{5, 0U}));
}

TEST(WhyOperand, EveryRefusalSaysWhatWasGiven) {
  const auto message = [](const std::string& text) {
    const Result<JobOperand> parsed = parse_job_operand(text);
    EXPECT_FALSE(parsed) << text;
    return parsed ? std::string() : parsed.error().to_string();
  };
  EXPECT_EQ(message("5.batch"), "JOBID: 5.batch is a job step; shareq why takes a job id, e.g. 5");
  EXPECT_EQ(message("5.0"), "JOBID: 5.0 is a job step; shareq why takes a job id, e.g. 5");
  EXPECT_EQ(message("5_1.extern"),
            "JOBID: 5_1.extern is a job step; shareq why takes a job id, e.g. 5_1");
  EXPECT_EQ(message("5_[1-3]"),
            "JOBID: 5_[1-3] names several tasks of job array 5; shareq why takes one, e.g. 5_1");
  EXPECT_EQ(message("5_2-4"),
            "JOBID: 5_2-4 names several tasks of job array 5; shareq why takes one, e.g. 5_2");
  EXPECT_EQ(message("5_*"),
            "JOBID: \"5_*\" names several tasks of job array 5; shareq why takes one, e.g. 5_1");
  EXPECT_EQ(message("5+1").rfind("JOBID: 5+1 is a component of heterogeneous job 5", 0), 0U);
  EXPECT_EQ(message("5_99999999999")
                .rfind("JOBID: array task 99999999999 of 5_99999999999 is "
                       "out of range",
                       0),
            0U);
  for (const char* bad :
       {"abc", "0", "", "5_", "_1", "5__1", "0_1", "5.", "-5", "4294967296", "5_x", ".batch"}) {
    EXPECT_NE(message(bad).find("is not a job id; allowed: a job id 1..4294967295, or one task "
                                "of a job array as JOBID_TASK (e.g. 5_1)"),
              std::string::npos)
        << bad << ": " << message(bad);
  }
}

TEST(WhyArrayTask, ResolvesToTheTasksOwnJobOrItsPendingRecord) {
  const std::vector<ArrayRecord> records = {
      {7, 5, 1U, ""},                      // task 1 runs as job 7
      {8, 5, 6U, ""},                      // task 6 as job 8
      {5, 5, std::nullopt, "2-4,9:2%2"}};  // the pending tasks: 2, 3, 4 (and 9)
  const Result<ArrayTaskJob> own = resolve_array_task(records, 5, 1);
  ASSERT_TRUE(own) << own.error().to_string();
  EXPECT_EQ(own.value().job_id, 7U);
  EXPECT_EQ(own.value().note, "");
  const Result<ArrayTaskJob> pending = resolve_array_task(records, 5, 3);
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending.value().job_id, 5U);
  EXPECT_NE(pending.value().note.find("5_3 is still pending"), std::string::npos)
      << pending.value().note;
  const Result<ArrayTaskJob> none = resolve_array_task(records, 5, 5);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().to_string().rfind("JOBID: slurmctld knows no task 5 of job array 5", 0),
            0U);
  const Result<ArrayTaskJob> plain = resolve_array_task({{12, 0, std::nullopt, ""}}, 12, 1);
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().message, "job 12 is not a job array; shareq why takes its job id, 12");
  const Result<ArrayTaskJob> unknown = resolve_array_task({}, 13, 1);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message.rfind("slurmctld does not know job 13", 0), 0U);
  // A list not read here (a hex bitmap) is not taken as a "no".
  EXPECT_EQ(resolve_array_task({{5, 5, std::nullopt, "0x1E"}}, 5, 3).value().job_id, 5U);
}

}  // namespace
}  // namespace shareq::tool
