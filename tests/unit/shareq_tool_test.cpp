// Runs the built shareq binary (SHAREQ_BIN) on good and bad files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hwtopo/topology_xml.hpp"
#include "test_configs.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ShareqTool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shareq_tool_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  // Runs `ENV [WRAPPER] shareq ARGS` through the shell; ARGS, ENV and WRAPPER are trusted test
  // strings.
  Outcome run(const std::string& args, const std::string& env = "",
              const std::string& wrapper = "") {
    const std::string command = "env -u SHAREQ_CONF -u SLURM_CONF " + env + " " + wrapper +
                                " '" SHAREQ_BIN "' " + args + " >'" + (dir_ / "out").string() +
                                "' 2>'" + (dir_ / "err").string() + "'";
    const int status = std::system(command.c_str());
    Outcome result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(dir_ / "out");
    result.err = slurp(dir_ / "err");
    return result;
  }

  fs::path dir_;
};

TEST_F(ShareqTool, CheckConfigPrintsAGoodFileInCanonicalForm) {
  const fs::path conf = write("shareq.conf", shareq::testing::kClusterConf);
  const Outcome r = run("check-config " + conf.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Share=ProdExp2 Family=p4 Quota=node=2 BorrowLimit=node=2 LendLimit=50%"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(ShareqTool, CheckConfigOutputParsesBack) {
  const fs::path conf = write("shareq.conf", shareq::testing::kClusterConf);
  const Outcome first = run("check-config " + conf.string());
  const fs::path again = write("again.conf", first.out);
  const Outcome second = run("check-config " + again.string());
  EXPECT_EQ(second.exit_code, 0) << second.err;
}

TEST_F(ShareqTool, CheckConfigPrintsEveryErrorAndFails) {
  const fs::path conf = write("bad.conf",
                              "Family=p4 Partitions=p4 Capacity=node=4\n"
                              "Share=a Family=p4 Quota=node=5\n"
                              "DefaultPriority=100\n");
  const Outcome r = run("check-config " + conf.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(conf.string() + ":2: Quota: quotas of family p4 sum to 5"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(conf.string() + ":3: DefaultPriority: 100 is out of range"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("2 errors"), std::string::npos) << r.err;
}

TEST_F(ShareqTool, CheckConfigMissingFile) {
  const Outcome r = run("check-config " + (dir_ / "none.conf").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("none.conf: cannot read: No such file or directory"), std::string::npos);
}

TEST_F(ShareqTool, DefaultFileFromShareqConf) {
  const fs::path conf = write("x.conf", "DefaultPriority=12\n");
  const Outcome r = run("check-config", "SHAREQ_CONF=" + conf.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DefaultPriority=12"), std::string::npos);
}

TEST_F(ShareqTool, DefaultFileBesideSlurmConf) {
  write("shareq.conf", "DefaultPriority=13\n");
  const Outcome r = run("check-config", "SLURM_CONF=" + (dir_ / "slurm.conf").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DefaultPriority=13"), std::string::npos);
}

TEST_F(ShareqTool, UsageErrorsExitTwo) {
  for (const char* args : {"", "help", "--help", "frobnicate", "check-config a b",
                           "check-config --bogus", "check-config a --bogus", "version extra"}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("usage: shareq"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_NE(run("frobnicate").err.find("unknown command \"frobnicate\""), std::string::npos);
}

TEST_F(ShareqTool, CheckConfigSaysWhatIsWrongWithItsCommandLine) {
  const Outcome bogus = run("check-config --bogus");
  EXPECT_EQ(bogus.err,
            "shareq: check-config: unknown option \"--bogus\"; allowed: --accounts, --help\n"
            "usage: shareq check-config [--accounts] [FILE|-]\n");
  const Outcome two = run("check-config a b");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("shareq: check-config: one FILE at most, got 2\n"), std::string::npos)
      << two.err;
  // After "--" every word is a FILE, even one that looks like an option.
  const Outcome file = run("check-config -- --bogus");
  EXPECT_EQ(file.exit_code, 1) << file.err;
  EXPECT_EQ(file.err.find("unknown option"), std::string::npos) << file.err;
  EXPECT_NE(file.err.find("--bogus"), std::string::npos) << file.err;
  const Outcome help = run("check-config --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: shareq check-config [--accounts] [FILE|-]\n", 0), 0u)
      << help.out;
  EXPECT_EQ(help.err, "");
}

TEST_F(ShareqTool, CheckConfigTakesAccountsAfterTheFile) {
  // A file with an error, so that slurmdbd is never asked: the command line is taken (the file's
  // error, exit 1), not refused as usage (2).
  const fs::path conf = write("bad.conf", "DefaultPriority=100\n");
  const Outcome r = run("check-config " + conf.string() + " --accounts");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(conf.string() + ":1: DefaultPriority: 100 is out of range"),
            std::string::npos)
      << r.err;
}

TEST_F(ShareqTool, CheckConfigReadsStandardInputForDash) {
  const fs::path conf = write("shareq.conf", "DefaultPriority=14\n");
  const Outcome good = run("check-config - <" + conf.string());
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("DefaultPriority=14"), std::string::npos) << good.out;
  const fs::path bad = write("bad.conf", "DefaultPriority=100\n");
  const Outcome r = run("check-config - <" + bad.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "-:1: DefaultPriority: 100 is out of range; allowed: 0..99\n"
            "shareq: check-config: 1 error in standard input\n");
}

TEST_F(ShareqTool, CheckConfigRefusesAFifoAtOnce) {
  const fs::path fifo = dir_ / "shareq.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Without a writer, reading would wait forever: `timeout` turns that into exit 124.
  const Outcome r = run("check-config " + fifo.string(), "", "timeout 10");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, fifo.string() +
                       ": is a FIFO, not a regular file; allowed: a regular file (or a symbolic "
                       "link to one)\n"
                       "shareq: check-config: 1 error in " +
                       fifo.string() + "\n");
}

TEST_F(ShareqTool, CheckConfigReportsEveryErrorBehindABadFamily) {
  const fs::path conf = write("bad.conf",
                              "Family=p4 Partitions=p4 Capacity=node=abc\n"
                              "Share=a Family=p4 Quota=node=xyz BorrowLimit=lots LendLimit=200%\n"
                              "Share=A Family=p4 Quota=node=1\n");
  const Outcome r = run("check-config " + conf.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("5 errors in"), std::string::npos) << r.err;
}

// The cluster subcommands read shareq.conf before they contact slurmctld, so these run anywhere.
TEST_F(ShareqTool, ClusterCommandsReportShareqConfErrorsAndFail) {
  const fs::path conf = write("bad.conf", "DefaultPriority=100\n");
  for (const std::string command : {"status", "why 12"}) {
    const Outcome r = run(command + " --config " + conf.string());
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_NE(r.err.find(conf.string() + ":1: DefaultPriority: 100 is out of range"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("cannot use " + conf.string() + " (1 error)"), std::string::npos) << r.err;
  }
}

TEST_F(ShareqTool, StatusNamesTheFamiliesWhenAskedForAnUnknownOne) {
  const fs::path conf = write("shareq.conf", shareq::testing::kClusterConf);
  const Outcome r = run("status --family p9 --config " + conf.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--family: no family \"p9\" in " + conf.string() + "; families: p4, p5"),
            std::string::npos)
      << r.err;
}

TEST_F(ShareqTool, ClusterCommandUsageErrors) {
  for (const char* args :
       {"status extra", "status --bogus", "status --family", "why", "why 1 2", "why abc", "why 0",
        "why 1 --json", "pools extra", "pools --config x", "pools end", "pools end wp-1 wp-2"}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("usage: shareq "), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_NE(run("why abc").err.find("JOBID: \"abc\" is not a job id"), std::string::npos);
}

// A step or several array tasks is a usage error that says what was given, before any file or
// slurmctld is read.
TEST_F(ShareqTool, WhySaysWhatAStepOrAnArrayRangeIs) {
  const Outcome step = run("why 5.batch");
  EXPECT_EQ(step.exit_code, 2);
  EXPECT_EQ(step.err.rfind("shareq: why: JOBID: 5.batch is a job step; shareq why takes a job id, "
                           "e.g. 5\n",
                           0),
            0u)
      << step.err;
  const Outcome range = run("why 5_[1-3]");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("5_[1-3] names several tasks of job array 5"), std::string::npos)
      << range.err;
  // An array task is taken: what fails here is shareq.conf, read next.
  const Outcome task = run("why 5_1 --config " + (dir_ / "none.conf").string());
  EXPECT_EQ(task.exit_code, 1) << task.err;
  EXPECT_NE(task.err.find("none.conf: cannot read"), std::string::npos) << task.err;
}

// node-check with --family needs no slurmctld: the node's topology comes from HWLOC_XMLFILE.
constexpr const char* kHardwareConf =
    "Family=p5 Partitions=p5 Capacity=gres/gpu=32 Hardware=gpus=8,numa=2,cores=96\n"
    "Family=p4 Partitions=p4 Capacity=node=4\n";

TEST_F(ShareqTool, NodeCheckHealthyNodeExitsZeroWithOneLine) {
  const fs::path conf = write("shareq.conf", kHardwareConf);
  const fs::path xml = write("p5.xml", shareq::hwtopo::testing::node_topology_xml({}));
  const Outcome r = run("node-check --family p5 --config " + conf.string(),
                        "HWLOC_THISSYSTEM=1 HWLOC_XMLFILE=" + xml.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "shareq: hardware: ok: 8 GPUs, 2 NUMA nodes, 96 cores, as family p5 expects\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(ShareqTool, NodeCheckMissingGpuExitsOneSayingWhat) {
  const fs::path conf = write("shareq.conf", kHardwareConf);
  const fs::path xml = write("p5-7.xml", shareq::hwtopo::testing::node_topology_xml({.gpus = 7}));
  const Outcome r = run("node-check --family=p5",
                        "SHAREQ_CONF=" + conf.string() + " HWLOC_XMLFILE=" + xml.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "shareq: hardware: 7 GPUs found, family p5 expects 8\n");
}

TEST_F(ShareqTool, NodeCheckUnreadableTopologyFailsClosed) {
  const fs::path conf = write("shareq.conf", kHardwareConf);
  const fs::path bad = write("bad.xml", "<topology>");
  for (const std::string& xml : {(dir_ / "none.xml").string(), bad.string()}) {
    const Outcome r =
        run("node-check --family p5 --config " + conf.string(), "HWLOC_XMLFILE=" + xml);
    EXPECT_EQ(r.exit_code, 1) << xml;
    EXPECT_EQ(
        r.out.rfind("shareq: hardware: cannot check: topology: the XML topology " + xml + ": ", 0),
        0U)
        << r.out;
  }
}

TEST_F(ShareqTool, NodeCheckFamilyWithoutHardwareIsHealthy) {
  const fs::path conf = write("shareq.conf", kHardwareConf);
  const Outcome r = run("node-check --family p4 --config " + conf.string(),
                        "HWLOC_XMLFILE=" + (dir_ / "none.xml").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "shareq: hardware: ok: nothing to check (family p4: no Hardware=)\n");
}

TEST_F(ShareqTool, NodeCheckUsageAndConfigErrorsExitTwo) {
  const fs::path conf = write("shareq.conf", kHardwareConf);
  const fs::path bad =
      write("bad.conf", "Family=p5 Partitions=p5 Capacity=node=1 Hardware=gpu=8\n");
  for (const std::string& args : std::vector<std::string>{
           "node-check extra", "node-check --bogus", "node-check --drain=yes",
           "node-check --family", "node-check --family p9 --config " + conf.string(),
           "node-check --family p5 --config " + bad.string()}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_NE(run("node-check --family p5 --config " + bad.string())
                .err.find(bad.string() + ":1: Hardware: unknown key \"gpu\""),
            std::string::npos);
  EXPECT_NE(run("node-check --family p9 --config " + conf.string())
                .err.find("--family: no family \"p9\" in " + conf.string() + "; families: p5, p4"),
            std::string::npos);
}

TEST_F(ShareqTool, Version) {
  const Outcome r = run("version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("shareq ", 0), 0u) << r.out;
}

}  // namespace
