// Runs the built shareq binary (SHAREQ_BIN) on good and bad files.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

  // Runs `ENV shareq ARGS` through the shell; ARGS and ENV are trusted test strings.
  Outcome run(const std::string& args, const std::string& env = "") {
    const std::string command = "env -u SHAREQ_CONF -u SLURM_CONF " + env + " '" SHAREQ_BIN "' " +
                                args + " >'" + (dir_ / "out").string() + "' 2>'" +
                                (dir_ / "err").string() + "'";
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
                           "check-config --bogus", "version extra"}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("usage: shareq"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_NE(run("frobnicate").err.find("unknown command \"frobnicate\""), std::string::npos);
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

TEST_F(ShareqTool, Version) {
  const Outcome r = run("version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("shareq ", 0), 0u) << r.out;
}

}  // namespace
