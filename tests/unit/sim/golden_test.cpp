// Golden scenarios: small hand-written traces whose every decision is known, replayed by
// `shareq sim` and compared with the expected per-job CSV (data/*.expected.csv); determinism;
// the two real traces of shared/traces (skipped when absent).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>
#include <variant>

#include "sim/slurm_conf.hpp"
#include "sim_command.hpp"

namespace shareq::tool {
namespace {

const std::string kData = SHAREQ_SIM_DATA;
const std::string kTraces = SHAREQ_TRACES_DIR;

// A file's text; empty when it cannot be read.
std::string file_text(const std::string& path) {
  auto text = sim::read_input_file(path, sim::kTraceInput);
  return std::holds_alternative<std::string>(text) ? std::get<std::string>(text) : "";
}

struct SimRun {
  int code = 0;
  std::string out, err, csv;
};

// One file per test and kind: ctest -j runs this binary's tests at once.
std::string test_csv(const std::string& kind) {
  return ::testing::TempDir() + "/sim_golden." + kind +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".csv";
}

SimRun sim(std::vector<std::string> args) {
  const std::string csv = test_csv("");
  args.insert(args.end(), {"--jobs-csv", csv});
  std::ostringstream out, err;
  SimRun run;
  run.code = run_sim(args, out, err);
  run.out = out.str();
  run.err = err.str();
  run.csv = file_text(csv);
  return run;
}

SimRun golden(const std::string& trace, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--slurm-conf", kData + "/golden.slurm.conf",
                                   "--config",     kData + "/golden.shareq.conf",
                                   "--trace",      kData + "/" + trace};
  args.insert(args.end(), extra.begin(), extra.end());
  return sim(args);
}

TEST(SimGolden, BorrowerIsReclaimedWhenTheOwnersJobArrives) {
  // borrower runs 2 x 4 GPUs (4 borrowed); owner's 4-GPU job arrives at 100 and reclaims the
  // borrower's latest-started job (ties: highest id). Slurm holds the requeued job until its
  // BeginTime, cred_expire + 1 s after the requeue (golden.slurm.conf has Slurm's default
  // cred_expire, 120 s): 221. Nothing starts a pass then; the next pass is at 240 (Slurm's
  // defaults: backfill every 30 s, a periodic main pass every 60 s), and the job restarts there.
  const SimRun run = golden("reclaim.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, file_text(kData + "/reclaim.expected.csv"));
}

TEST(SimGolden, ARequeuedJobWaitsOutItsBeginTimeOnly) {
  // The same with AuthInfo=cred_expire=10: the requeued job may start from 111, and the owner's
  // job's end at 200 starts it at once (a job end triggers a main pass).
  const std::string conf = ::testing::TempDir() + "/sim_golden.credexpire.slurm.conf";
  {
    std::ofstream out(conf);
    out << file_text(kData + "/golden.slurm.conf")
        << "AuthInfo=socket=/run/munge/munge.socket.2,cred_expire=10\n";
  }
  const SimRun run = sim({"--slurm-conf", conf, "--config", kData + "/golden.shareq.conf",
                          "--trace", kData + "/reclaim.sacct"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.csv.find("2,borrower,gpu,0,200,1200,200,1,\"g2\""), std::string::npos) << run.csv;
}

TEST(SimGolden, APreemptedRunsGpuTimeIsBusyAndCountedAsLost) {
  // reclaim.sacct: job 2's first run held 4 GPUs from 0 to 100 and was preempted: 400
  // GPU-seconds lost, the borrower's, and part of the family's used GPU-hours (the GPUs ran).
  const SimRun run = golden("reclaim.sacct", {"--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  const auto& shareq = json["runs"][0];
  const auto& family = shareq["families"][0];
  EXPECT_DOUBLE_EQ(family["lost_gpu_hours"].get<double>(), 400.0 / 3600);
  // 1: 4 GPUs 0-1000; 2: 4 GPUs 0-100 (lost) and 200-1200; 3: 4 GPUs 100-200.
  EXPECT_DOUBLE_EQ(family["used_gpu_hours"].get<double>(), 4.0 * (1000 + 100 + 1000 + 100) / 3600);
  for (const auto& share : shareq["shares"]) {
    const double lost = share["share"] == "borrower" ? 400.0 / 3600 : 0;
    EXPECT_DOUBLE_EQ(share["lost_gpu_hours"].get<double>(), lost) << share.dump();
  }
  const SimRun text = golden("reclaim.sacct");
  EXPECT_NE(text.out.find("LOST_GPU_H"), std::string::npos) << text.out;
}

TEST(SimGolden, InSharePriorityOrdersTheQueue) {
  // Three whole-cluster jobs wait behind a running one: priority 90, then 50, then 20.
  const SimRun run = golden("priority.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, file_text(kData + "/priority.expected.csv"));
}

TEST(SimGolden, BorrowersRankByUsageAccruedEveryFiveSeconds) {
  // Jobs 2 (owner) and 3 (borrower) both borrow and wait for job 1 (owner, 8 GPUs, 0-20). At 20
  // the owner has 160 GPU-seconds of usage: priority/shareq accrues it every 5 s, so job 3, of the
  // share with less usage, starts first although job 2 is older. (Accrued every PriorityCalcPeriod,
  // 5 minutes, the shares would still stand equal and job 2 would go first.)
  const SimRun run = golden("standing.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.csv.find("3,borrower,gpu,11,20,40,9,0,"), std::string::npos) << run.csv;
  EXPECT_NE(run.csv.find("2,owner,gpu,10,40,60,30,0,"), std::string::npos) << run.csv;
}

TEST(SimGolden, SubmitDelayHoldsSubmissionsButNotJobEnds) {
  // --submit-delay 3 (Slurm's batch_sched_delay): job 1 (t=0) gets the first pass at once; job 2
  // (t=1) waits for the pass 3 s after it, at 3; job 3 (t=4, no room) starts at the end of job 1
  // (100), which triggers a pass at once; job 4 (t=120) comes long after the last pass and starts
  // at once. Without the delay job 2 starts at 1 and nothing else changes. golden.slurm.conf has
  // no SchedulerParameters: Slurm's default batch_sched_delay is 3.
  const SimRun run = golden("delay.sacct", {"--submit-delay", "3"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, file_text(kData + "/delay.expected.csv"));
  EXPECT_EQ(golden("delay.sacct").csv, run.csv);
  const SimRun none = golden("delay.sacct", {"--submit-delay", "0"});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.csv.find("2,borrower,gpu,1,1,101,0,0,\"g2\""), std::string::npos) << none.csv;
  const SimRun fifo =
      golden("delay.sacct", {"--submit-delay", "3", "--baseline", "fifo", "--json"});
  ASSERT_EQ(fifo.code, 0) << fifo.err;
  const SimRun bad = golden("delay.sacct", {"--submit-delay", "-1"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--submit-delay"), std::string::npos) << bad.err;
}

TEST(SimGolden, SubmitDelayTakesWhatBatchSchedDelayTakes) {
  // Slurm reads batch_sched_delay into an int and refuses only a negative value: --submit-delay
  // and batch_sched_delay= (--sched-params, slurm.conf) take 0..2147483647 alike. A delay past
  // sched_interval (60 s here) leaves submissions to the periodic and backfill passes: job 2
  // (t=1), which the 3 s default starts at 3, starts at 30 in the backfill pass.
  for (const std::string value : {"3601", "86401", "2147483647"}) {
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--submit-delay", value},
          std::vector<std::string>{"--sched-params", "batch_sched_delay=" + value}}) {
      const SimRun run = golden("delay.sacct", extra);
      ASSERT_EQ(run.code, 0) << extra[0] << " " << value << ": " << run.err;
      EXPECT_NE(run.csv.find("2,borrower,gpu,1,30,130,29,0,\"g2\""), std::string::npos)
          << extra[0] << " " << value << ": " << run.csv;
    }
  }
  for (const auto& [value, what] : std::vector<std::pair<std::string, std::string>>{
           {"-1", "\"-1\" is negative"}, {"2147483648", "2147483648 is out of range"}}) {
    const SimRun option = golden("delay.sacct", {"--submit-delay", value});
    EXPECT_EQ(option.code, 2);
    EXPECT_EQ(
        option.err.rfind("shareq: sim: --submit-delay: " + what + "; allowed: 0..2147483647\n", 0),
        0U)
        << option.err;
    const SimRun key = golden("delay.sacct", {"--sched-params", "batch_sched_delay=" + value});
    EXPECT_EQ(key.code, 2);
    EXPECT_EQ(key.err.rfind("shareq: sim: --sched-params: SchedulerParameters batch_sched_delay: " +
                                what + "; allowed: 0..2147483647\n",
                            0),
              0U)
        << key.err;
  }
}

// Slurm's passes (passes.slurm.conf: sched_interval=60, batch_sched_delay=0, bf_interval=30,
// bf_min_prio_reserve at the within-quota tier). Borrower's jobs 1 and 2 (3 GPUs each) take 3 of
// each node's 4 GPUs at 0 until 1000; at 10 come a 4-GPU job 3 (fits nowhere) and a 1-GPU
// borrower job 4 (fits) ranked after it.
SimRun passes(const std::string& trace, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--slurm-conf", kData + "/passes.slurm.conf",
                                   "--config",     kData + "/passes.shareq.conf",
                                   "--trace",      kData + "/" + trace};
  args.insert(args.end(), extra.begin(), extra.end());
  return sim(args);
}

TEST(SimGolden, MainPassStopsAtAWithinQuotaJobThatDoesNotFitNotAtABorrower) {
  // Job 3 is the owner's, within quota: the main pass at 10 stops at it (fail_by_part), and job
  // 4 waits for the backfill pass at 30.
  const SimRun stop = passes("stop.sacct");
  ASSERT_EQ(stop.code, 0) << stop.err;
  EXPECT_NE(stop.csv.find("3,owner,gpu,10,1000,1100,990,0,\"g1\""), std::string::npos) << stop.csv;
  EXPECT_NE(stop.csv.find("4,borrower,gpu,10,30,130,20,0,\"g1\""), std::string::npos) << stop.csv;
  // Job 3 borrows (below bf_min_prio_reserve): the main pass goes on and starts job 4 at 10.
  const SimRun go_on = passes("nostop.sacct");
  ASSERT_EQ(go_on.code, 0) << go_on.err;
  EXPECT_NE(go_on.csv.find("4,borrower,gpu,10,10,110,0,0,\"g1\""), std::string::npos) << go_on.csv;
  // Without bf_min_prio_reserve every job that does not fit stops its partition.
  const SimRun every = passes("nostop.sacct", {"--sched-params", "bf_min_prio_reserve=4294967295"});
  EXPECT_NE(every.csv.find("4,borrower,gpu,10,10,110,0,0"), std::string::npos) << every.csv;
}

TEST(SimGolden, MainPassTestsPartitionJobDepthJobs) {
  // partition_job_depth=1: the main pass at 10 tests job 3 only; job 4 waits for backfill (30).
  const SimRun run = passes("nostop.sacct", {"--sched-params", "partition_job_depth=1"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.csv.find("4,borrower,gpu,10,30,130,20,0,\"g1\""), std::string::npos) << run.csv;
}

TEST(SimGolden, BackfillRunsOnItsInterval) {
  // Job 4, held back by the main pass, starts at backfill's next pass (on a grid from time 0): 30,
  // or 45 with bf_interval=45; with no backfill (bf_interval=-1) not before job 3 starts.
  const SimRun later = passes("stop.sacct", {"--sched-params", "bf_interval=45"});
  EXPECT_NE(later.csv.find("4,borrower,gpu,10,45,145,35,0"), std::string::npos) << later.csv;
  const SimRun none = passes("stop.sacct", {"--sched-params", "bf_interval=-1"});
  EXPECT_NE(none.csv.find("4,borrower,gpu,10,1000,1100,990,0,\"g2\""), std::string::npos)
      << none.csv;
}

TEST(SimGolden, SchedulerParametersComeFromSlurmConfAndTheCommandLine) {
  // The command line's --sched-params win over slurm.conf's (first occurrence of a key counts
  // within one list, as in Slurm); --sched-interval and --submit-delay over both.
  const SimRun conf = passes("stop.sacct");
  const SimRun options = passes("stop.sacct", {"--sched-params", "bf_interval=30"});
  EXPECT_EQ(conf.csv, options.csv);
  const SimRun bad = passes("stop.sacct", {"--sched-params", "partition_job_depth=-2"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("SchedulerParameters partition_job_depth: "), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("allowed: 0 (no bound)..1000000000"), std::string::npos) << bad.err;
}

TEST(SimGolden, FifoBaselineRunsInSubmissionOrder) {
  const SimRun run = golden("priority.sacct", {"--baseline", "fifo", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("\"label\": \"fifo+backfill\""), std::string::npos);
  EXPECT_NE(run.out.find("\"preempted_runs\": 0"), std::string::npos);
}

// The stock baseline (Slurm's stock plugins): multifactor's order (submission order in
// stock.slurm.conf, which sets no weights), cons_tres's first fit, and a main pass that stops at
// the first job that does not fit, whatever it is, unless it is below bf_min_prio_reserve.
SimRun stock(const std::string& trace, const std::string& config = "passes.shareq.conf",
             const std::string& slurm_conf = kData + "/stock.slurm.conf") {
  return sim({"--slurm-conf", slurm_conf, "--config", kData + "/" + config, "--trace",
              kData + "/" + trace, "--baseline", "stock", "--baseline-jobs-csv",
              test_csv("stock.")});
}

std::string stock_csv() { return file_text(test_csv("stock.")); }

TEST(SimGolden, StockBaselineMainPassStopsAtTheFirstJobThatDoesNotFit) {
  // nostop.sacct: job 3 (4 GPUs, a borrower under shareq) fits nowhere at 10. Stock's main pass
  // (stock.slurm.conf: no bf_min_prio_reserve) stops there, and job 4 waits for the backfill
  // pass at 30.
  const SimRun run = stock("nostop.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("== stock: 4 jobs replayed"), std::string::npos) << run.out;
  const std::string csv = stock_csv();
  EXPECT_NE(csv.find("4,borrower,gpu,10,30,130,20,0,\"g1\""), std::string::npos) << csv;
  EXPECT_NE(csv.find("3,borrower,gpu,10,1000,1100,990,0,"), std::string::npos) << csv;
  // With passes.slurm.conf's bf_min_prio_reserve, above every borrower's priority under shareq
  // and every priority under stock, both main passes go on past job 3 and start job 4 at 10.
  const SimRun reserve = stock("nostop.sacct", "passes.shareq.conf", kData + "/passes.slurm.conf");
  ASSERT_EQ(reserve.code, 0) << reserve.err;
  EXPECT_NE(reserve.csv.find("4,borrower,gpu,10,10,110,0,0,"), std::string::npos) << reserve.csv;
  EXPECT_NE(stock_csv().find("4,borrower,gpu,10,10,110,0,0,"), std::string::npos) << stock_csv();
}

TEST(SimGolden, StockBaselinePlacesByFirstFitInSubmissionOrder) {
  // Jobs 1 (2 GPUs) and 2 (3 GPUs) take g1 and g2; job 3 (1 GPU, at 1) goes to g1, the first node
  // with room (best fit, shareq's packing, takes g2's last GPU), so job 4 (2 GPUs) finds no
  // node under stock until 1000, and starts at 10 beside job 1 under shareq.
  const SimRun run = stock("firstfit.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string csv = stock_csv();
  EXPECT_NE(csv.find("3,borrower,gpu,1,1,1001,0,0,\"g1\""), std::string::npos) << csv;
  EXPECT_NE(csv.find("4,borrower,gpu,10,1000,1100,990,0,\"g1\""), std::string::npos) << csv;
  EXPECT_NE(run.csv.find("3,borrower,gpu,1,1,1001,0,0,\"g2\""), std::string::npos) << run.csv;
  EXPECT_NE(run.csv.find("4,borrower,gpu,10,10,110,0,0,\"g1\""), std::string::npos) << run.csv;
  // --share-priority means nothing to stock: priority.sacct's jobs run in submission order.
  const SimRun order = stock("priority.sacct");
  ASSERT_EQ(order.code, 0) << order.err;
  const std::string fifo = stock_csv();
  EXPECT_NE(fifo.find("2,owner,gpu,10,100,200,90,0,"), std::string::npos) << fifo;
  EXPECT_NE(fifo.find("4,owner,gpu,10,300,400,290,0,"), std::string::npos) << fifo;
}

// fairshare.sacct: owner's jobs 1 and 2 fill both nodes (until 1000 and 2000); owner's job 3
// (at 10) and borrower's job 4 (at 20) wait for job 1's node. The stock baseline with
// stock.slurm.conf's passes and multifactor's priority settings `priority`.
std::string stock_fairshare_csv(const std::string& priority) {
  const std::string conf = ::testing::TempDir() + "/sim_golden.fairshare." +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".slurm.conf";
  std::ofstream(conf) << file_text(kData + "/stock.slurm.conf") << priority;
  const SimRun run = stock("fairshare.sacct", "passes.shareq.conf", conf);
  EXPECT_EQ(run.code, 0) << run.err;
  return stock_csv();
}

TEST(SimGolden, StockBaselineOrdersByFairShareAsOfItsLastCalculation) {
  // By 1000, multifactor has calculated every minute: owner has used two nodes, borrower nothing,
  // so borrower's job 4 goes first although submitted after owner's job 3.
  const std::string fair =
      stock_fairshare_csv("PriorityWeightFairshare=10000\nPriorityCalcPeriod=1\n");
  EXPECT_NE(fair.find("4,borrower,gpu,20,1000,1100,980,0,\"g1\""), std::string::npos) << fair;
  EXPECT_NE(fair.find("3,owner,gpu,10,1100,1200,1090,0,\"g1\""), std::string::npos) << fair;
  // Calculated only at Slurm's start (PriorityCalcPeriod of an hour): no usage yet, every share
  // ties, and the jobs go in submission order; so they do with no weights (Slurm's default).
  for (const std::string priority :
       {"PriorityWeightFairshare=10000\nPriorityCalcPeriod=60\n", "PriorityCalcPeriod=1\n"}) {
    const std::string fifo = stock_fairshare_csv(priority);
    EXPECT_NE(fifo.find("3,owner,gpu,10,1000,1100,990,0,\"g1\""), std::string::npos)
        << priority << fifo;
    EXPECT_NE(fifo.find("4,borrower,gpu,20,1100,1200,1080,0,\"g1\""), std::string::npos)
        << priority << fifo;
  }
  // Age outweighs fair share here: job 3 has waited 10 s longer (10 s of an hour's PriorityMaxAge
  // is worth 2,777 points; borrower's better fair share, 500).
  const std::string aged = stock_fairshare_csv(
      "PriorityWeightFairshare=1000\nPriorityWeightAge=1000000\nPriorityMaxAge=60\n"
      "PriorityCalcPeriod=1\n");
  EXPECT_NE(aged.find("3,owner,gpu,10,1000,1100,990,0,\"g1\""), std::string::npos) << aged;
}

TEST(SimGolden, SameInputsSameOutput) {
  const SimRun a = golden("reclaim.sacct", {"--json", "--baseline", "fifo"});
  const SimRun b = golden("reclaim.sacct", {"--json", "--baseline", "fifo"});
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.csv, b.csv);
}

TEST(SimCommand, BadCommandLinesAndInputsSayWhat) {
  std::ostringstream out, err;
  EXPECT_EQ(run_sim(std::vector<std::string>{"--trace-format", "csv"}, out, err), 2);
  EXPECT_NE(err.str().find("allowed: sacct, swf"), std::string::npos) << err.str();
  const SimRun missing = golden("reclaim.sacct", {"--trace-format", "swf"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--swf-map"), std::string::npos);
  EXPECT_EQ(run_sim(std::vector<std::string>{"--baseline", "slurm"}, out, err), 2);
  EXPECT_NE(err.str().find("--baseline: \"slurm\" is not a baseline; allowed: fifo, stock"),
            std::string::npos)
      << err.str();
  const SimRun lone = golden("reclaim.sacct", {"--baseline-jobs-csv", "/tmp/x.csv"});
  EXPECT_EQ(lone.code, 2);
  EXPECT_NE(lone.err.find("--baseline-jobs-csv needs --baseline fifo|stock"), std::string::npos)
      << lone.err;
  const SimRun bad = sim({"--slurm-conf", kData + "/golden.slurm.conf", "--config",
                          kData + "/golden.shareq.conf", "--trace", kData + "/golden.slurm.conf"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("header: missing"), std::string::npos) << bad.err;
}

// A file under the test's temporary directory with `text`; its path.
std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/sim_golden." +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + "." + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<std::string> golden_args(const std::string& trace) {
  return {"--slurm-conf", kData + "/golden.slurm.conf",
          "--config",     kData + "/golden.shareq.conf",
          "--trace",      trace};
}

// The run with one of golden()'s inputs replaced: "--trace", "/dev/zero".
SimRun golden_with(const std::string& option, const std::string& path,
                   std::vector<std::string> extra = {}) {
  std::vector<std::string> args = golden_args(kData + "/reclaim.sacct");
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == option) args[i + 1] = path;
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return sim(args);
}

// A file of `size` zero bytes (sparse: nothing is written) under the test's directory; its path.
std::string zero_file(const std::string& name, uintmax_t size) {
  std::string path = temp_file(name, "");
  std::filesystem::resize_file(path, size);
  return path;
}

// "shareq: sim: OPTION: PATH: MESSAGE" and a newline: what sim says of an input it cannot use.
std::string input_error(const std::string& option, const std::string& path,
                        const std::string& message) {
  std::string text = "shareq: sim: ";
  text.append(option).append(": ").append(path).append(": ").append(message).append("\n");
  return text;
}

TEST(SimCommand, InputsAreReadWithinTheirSizeLimits) {
  for (const auto& [option, mib, limit] : std::vector<std::tuple<std::string, int, std::string>>{
           {"--slurm-conf", 16, "16 MiB (the limit for a slurm.conf)"},
           {"--config", 4, "4 MiB (the limit for a shareq.conf)"}}) {
    const std::string big = zero_file("big", (uintmax_t{1} << 20) * mib + 1);
    const SimRun run = golden_with(option, big);
    EXPECT_EQ(run.code, 1) << option;
    EXPECT_EQ(run.err, input_error(option, big, "larger than " + limit));
  }
  const std::string big_map = zero_file("map", (uintmax_t{4} << 20) + 1);
  const SimRun swf = golden_with("--trace", kData + "/reclaim.sacct",
                                 {"--trace-format", "swf", "--swf-map", big_map});
  EXPECT_EQ(swf.code, 1);
  EXPECT_EQ(swf.err,
            input_error("--swf-map", big_map, "larger than 4 MiB (the limit for a SWF map)"));
  // A trace's limit is 1 GiB; the same reader with a smaller one.
  const std::string big_trace = zero_file("trace", (uintmax_t{1} << 20) + 1);
  const auto text = sim::read_input_file(big_trace, {"trace", size_t{1} << 20});
  ASSERT_TRUE(std::holds_alternative<sim::InputError>(text));
  EXPECT_EQ(std::get<sim::InputError>(text).to_string(),
            big_trace + ": larger than 1 MiB (the limit for a trace)");
  const auto exact = sim::read_input_file(
      kData + "/golden.slurm.conf", {"slurm.conf", file_text(kData + "/golden.slurm.conf").size()});
  EXPECT_TRUE(std::holds_alternative<std::string>(exact));
}

// The message for an input that is not a regular file (input_error's MESSAGE).
std::string not_regular(const std::string& kind) {
  return "is " + kind +
         ", not a regular file; allowed: a regular file (or a symbolic link to one), or a pipe "
         "this command was given open (/dev/stdin)";
}

// The run with `option`'s input replaced by `path` (golden_with), each option in turn: the
// error names the option and the file, and says what the file is.
void expect_refused_as_every_input(const std::string& path, const std::string& kind) {
  const std::string sacct = kData + "/reclaim.sacct";
  for (const auto& [option, run] : std::vector<std::pair<std::string, SimRun>>{
           {"--slurm-conf", golden_with("--slurm-conf", path)},
           {"--config", golden_with("--config", path)},
           {"--trace", golden_with("--trace", path)},
           {"--compare", golden_with("--trace", sacct, {"--compare", path})},
           {"--swf-map",
            golden_with("--trace", sacct, {"--trace-format", "swf", "--swf-map", path})}}) {
    EXPECT_EQ(run.code, 1) << option;
    EXPECT_EQ(run.err, input_error(option, path, not_regular(kind))) << option;
  }
}

TEST(SimCommand, AFifoGivenAsAnInputIsRefusedBeforeAnyRead) {
  // Opened to read, a FIFO without a writer waits for one, and so would the simulator, forever.
  // Not temp_file: writing to the FIFO a run before left would wait for a reader.
  const std::string fifo = ::testing::TempDir() + "/sim_golden." +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Were the FIFO opened (not refused), this wakes the reader with an end of file after 10 s,
  // so that the test fails on its message rather than hang.
  std::atomic<bool> done = false;
  std::thread waker([&] {
    for (int i = 0; !done; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (i < 1000) continue;
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
    }
  });
  expect_refused_as_every_input(fifo, "a FIFO");
  // An Include of slurm.conf is read the same way.
  const std::string conf = temp_file("slurm.conf", "NodeName=g[1-2] Gres=gpu:4\nInclude " + fifo +
                                                       "\nPartitionName=gpu Nodes=g[1-2]\n");
  const SimRun include = golden_with("--slurm-conf", conf);
  EXPECT_EQ(include.code, 1);
  EXPECT_EQ(include.err, input_error(conf + ":2", "Include", fifo + ": " + not_regular("a FIFO")));
  done = true;
  waker.join();
  std::filesystem::remove(fifo);
}

TEST(SimCommand, ADeviceOrADirectoryGivenAsAnInputIsRefused) {
  // /dev/zero would be read up to the input's limit (1 GiB for a trace) and then refused.
  expect_refused_as_every_input("/dev/zero", "a character device");
  const std::string dir = ::testing::TempDir();
  expect_refused_as_every_input(dir, "a directory");
  const SimRun missing = golden_with("--trace", "/nonexistent/t.sacct");
  EXPECT_EQ(missing.err, input_error("--trace", "/nonexistent/t.sacct",
                                     "cannot read: No such file or directory"));
}

TEST(SimCommand, APipeOnStandardInputIsReadAsTheTrace) {
  // `sacct ... | shareq sim --trace /dev/stdin`: a pipe this process holds is no FIFO left
  // without a writer, and is read as it always was (so is a process substitution's /dev/fd/N).
  const std::string trace = file_text(kData + "/reclaim.sacct");
  ASSERT_FALSE(trace.empty());
  for (const bool as_stdin : {true, false}) {
    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    ASSERT_EQ(::write(ends[1], trace.data(), trace.size()), static_cast<ssize_t>(trace.size()));
    ::close(ends[1]);
    const int saved = ::dup(STDIN_FILENO);
    if (as_stdin) {
      ASSERT_EQ(::dup2(ends[0], STDIN_FILENO), STDIN_FILENO);
    }
    const SimRun run =
        golden_with("--trace", as_stdin ? "/dev/stdin" : "/dev/fd/" + std::to_string(ends[0]));
    if (saved >= 0) {
      ::dup2(saved, STDIN_FILENO);
      ::close(saved);
    }
    ::close(ends[0]);
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.csv, file_text(kData + "/reclaim.expected.csv")) << as_stdin;
  }
}

TEST(SimCommand, AnUnwritableCsvSaysTheOsReason) {
  std::vector<std::string> args = golden_args(kData + "/reclaim.sacct");
  args.insert(args.end(), {"--jobs-csv", "/nonexistent/x.csv"});
  std::ostringstream out, err;
  EXPECT_EQ(run_sim(args, out, err), 1);
  EXPECT_EQ(
      err.str(),
      "shareq: sim: --jobs-csv: cannot write /nonexistent/x.csv: No such file or directory\n");
  EXPECT_EQ(out.str(), "");
}

TEST(SimCommand, SlurmConfIncludeIsFollowedAndNoNodesIsAnError) {
  const std::string nodes = temp_file("nodes.conf", "NodeName=g[1-2] Gres=gpu:4\n");
  const std::string name = nodes.substr(nodes.rfind('/') + 1);  // relative to slurm.conf's dir
  const std::string conf =
      temp_file("slurm.conf", "Include " + name + "\nPartitionName=gpu Nodes=g[1-2]\n");
  const SimRun run = golden_with("--slurm-conf", conf);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, file_text(kData + "/reclaim.expected.csv"));
  const std::string empty = temp_file("empty.conf", "ClusterName=c\n");
  const SimRun none = golden_with("--slurm-conf", empty);
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find(empty + ": NodeName: slurm.conf defines no NodeName lines"),
            std::string::npos)
      << none.err;
}

TEST(SimCommand, SchedParamsOnTheCommandLineAreOnlyModelledKeys) {
  for (const std::string list : {"bogus_key=5", "bf_interval=5,preempt_send_user_signal"}) {
    std::ostringstream out, err;
    EXPECT_EQ(run_sim(std::vector<std::string>{"--sched-params", list}, out, err), 2);
    EXPECT_NE(err.str().find("is not a parameter the simulator models; allowed: sched_interval, "
                             "batch_sched_delay, default_queue_depth, partition_job_depth, "
                             "bf_interval, bf_max_job_test, bf_min_prio_reserve (KEY=VALUE)"),
              std::string::npos)
        << err.str();
  }
  // --sched-interval takes what sched_interval= takes, as Slurm does: -1 and 0..86400.
  for (const char* value : {"0", "-1"}) {
    EXPECT_EQ(golden("reclaim.sacct", {"--sched-interval", value}).code, 0) << value;
    EXPECT_EQ(
        golden("reclaim.sacct", {"--sched-params", std::string("sched_interval=") + value}).code,
        0);
  }
  const SimRun bad = golden("reclaim.sacct", {"--sched-interval", "-2"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--sched-interval: \"-2\" is negative; allowed: -1 (no main pass) or "
                         "0..86400"),
            std::string::npos)
      << bad.err;
}

TEST(SimCommand, HelpUnknownOptionsAndFlagsWithValues) {
  std::ostringstream out, err;
  EXPECT_EQ(run_sim(std::vector<std::string>{"--help"}, out, err), 0);
  EXPECT_EQ(out.str().rfind("usage: shareq sim --slurm-conf FILE", 0), 0u) << out.str();
  EXPECT_EQ(err.str(), "");
  for (const auto& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--json", "--bogus"}, "shareq: sim: unknown option \"--bogus\"\n"},
           {{"--bogus=1"}, "shareq: sim: unknown option \"--bogus\"\n"},
           {{"--json=yes"}, "shareq: sim: --json takes no value\n"},
           {{"--trace"}, "shareq: sim: --trace needs a value\n"},
           {{"trace.sacct"}, "shareq: sim: unexpected \"trace.sacct\"\n"}}) {
    std::ostringstream o, e;
    EXPECT_EQ(run_sim(args, o, e), 2);
    EXPECT_EQ(e.str().rfind(expected, 0), 0u) << e.str();
  }
}

TEST(SimCommand, JobsCsvQuotesFieldsAsRfc4180) {
  const std::string trace =
      temp_file("sacct",
                "JobID|Account|Partition|Submit|Elapsed|AllocTRES|NNodes\n"
                "1,\"2|owner|gpu|2024-01-01T00:00:00|00:01:40|gres/gpu=4|1\n");
  const SimRun run = sim(golden_args(trace));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv,
            "id,share,family,submit,start,end,wait,preempted,nodes\n"
            "\"1,\"\"2\",owner,gpu,0,0,100,0,0,\"g1\"\n");
}

void real_trace(const std::string& name, const std::string& site) {
  const std::string trace = kTraces + "/" + name;
  if (!std::filesystem::exists(trace)) GTEST_SKIP() << trace << " is not here";
  const SimRun run =
      sim({"--slurm-conf", kData + "/" + site + ".slurm.conf", "--config",
           kData + "/" + site + ".shareq.conf", "--trace", trace, "--trace-format", "swf",
           "--swf-map", kData + "/" + site + ".swfmap", "--baseline", "fifo"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("0 never started"), std::string::npos) << run.out;
}

TEST(SimRealTraces, CurieHybridGpu) { real_trace("trace-curie-hybrid-gpu.swf", "curie"); }
TEST(SimRealTraces, Hpc2nSlice) { real_trace("trace-hpc2n-slice.swf", "hpc2n"); }

}  // namespace
}  // namespace shareq::tool
