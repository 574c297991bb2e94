// Golden scenarios: small hand-written traces whose every decision is known, replayed by
// `shareq sim` and compared with the expected per-job CSV (data/*.expected.csv); determinism;
// the two real traces of shared/traces (skipped when absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "sim/slurm_conf.hpp"
#include "sim_command.hpp"

namespace shareq::tool {
namespace {

const std::string kData = SHAREQ_SIM_DATA;
const std::string kTraces = SHAREQ_TRACES_DIR;

struct SimRun {
  int code = 0;
  std::string out, err, csv;
};

SimRun sim(std::vector<std::string> args) {
  const std::string csv = ::testing::TempDir() + "/sim_golden.csv";
  args.insert(args.end(), {"--jobs-csv", csv});
  std::ostringstream out, err;
  SimRun run;
  run.code = run_sim(args, out, err);
  run.out = out.str();
  run.err = err.str();
  run.csv = sim::read_text_file(csv).value_or("");
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
  // borrower's latest-started job (ties: highest id), which restarts when the owner's job ends.
  const SimRun run = golden("reclaim.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, sim::read_text_file(kData + "/reclaim.expected.csv").value());
}

TEST(SimGolden, InSharePriorityOrdersTheQueue) {
  // Three whole-cluster jobs wait behind a running one: priority 90, then 50, then 20.
  const SimRun run = golden("priority.sacct");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, sim::read_text_file(kData + "/priority.expected.csv").value());
}

TEST(SimGolden, SubmitDelayHoldsSubmissionsButNotJobEnds) {
  // --submit-delay 3 (Slurm's batch_sched_delay): job 1 (t=0) gets the first pass at once; job 2
  // (t=1) waits for the pass 3 s after it, at 3; job 3 (t=4, no room) starts at the end of job 1
  // (100), which triggers a pass at once; job 4 (t=120) comes long after the last pass and starts
  // at once. Without the delay job 2 starts at 1 and nothing else changes.
  const SimRun run = golden("delay.sacct", {"--submit-delay", "3"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.csv, sim::read_text_file(kData + "/delay.expected.csv").value());
  const SimRun none = golden("delay.sacct");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.csv.find("2,borrower,gpu,1,1,101,0,0,\"g2\""), std::string::npos) << none.csv;
  const SimRun fifo =
      golden("delay.sacct", {"--submit-delay", "3", "--baseline", "fifo", "--json"});
  ASSERT_EQ(fifo.code, 0) << fifo.err;
  const SimRun bad = golden("delay.sacct", {"--submit-delay", "-1"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--submit-delay"), std::string::npos) << bad.err;
}

TEST(SimGolden, FifoBaselineRunsInSubmissionOrder) {
  const SimRun run = golden("priority.sacct", {"--baseline", "fifo", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("\"label\": \"fifo+backfill\""), std::string::npos);
  EXPECT_NE(run.out.find("\"preempted_runs\": 0"), std::string::npos);
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
  const SimRun bad = sim({"--slurm-conf", kData + "/golden.slurm.conf", "--config",
                          kData + "/golden.shareq.conf", "--trace", kData + "/golden.slurm.conf"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("header: missing"), std::string::npos) << bad.err;
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
