// shareq.conf's holder (plugins/ctld/config_holder.hpp) on real files: a good file is loaded and
// its text kept as the last good copy; a bad file keeps the previous good configuration, in the
// same process and, through the copy, in the next one (slurmctld restarted, or re-executed by
// `scontrol reconfigure` from Slurm 23.11); without a usable copy nothing is made up.
#include "config_holder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "state_file.hpp"
#include "temp_dir.hpp"

namespace shareq::ctld {
namespace {

namespace fs = std::filesystem;

std::string conf_with_priority(int priority) {
  return "Family=p4 Partitions=p4 Capacity=node=4\nShare=a Family=p4 Quota=node=4\n"
         "DefaultPriority=" +
         std::to_string(priority) + "\n";
}

class ConfigHolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_path_ = (dir_ / "shareq.conf").string();
    copy_path_ = (dir_ / "state" / "shareq_conf_last_good").string();
    fs::create_directories(dir_ / "state");
  }

  static void write(const std::string& path, const std::string& text) {
    // A new inode each time, so that the holder sees a change within one clock second too.
    const std::string temp = path + ".tmp";
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << text;
      ASSERT_TRUE(out.good());
    }
    fs::rename(temp, path);
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // One slurmctld process: its own holder, the same files.
  std::unique_ptr<ConfigHolder> process() {
    ConfigHolder::LastGoodCopy copy{copy_path_,
                                    [this](const std::string& path, const std::string& text) {
                                      ++saves_;
                                      ASSERT_EQ(write_file_atomically(path, text), std::nullopt);
                                    }};
    return std::make_unique<ConfigHolder>(
        conf_path_, [this](const std::string& line) { errors_.push_back(line); },
        [this](const std::string& line) { infos_.push_back(line); }, [this] { return now_; },
        std::move(copy));
  }

  [[nodiscard]] bool logged_error(const std::string& words) const {
    return std::ranges::any_of(
        errors_, [&](const std::string& line) { return line.find(words) != std::string::npos; });
  }

  TempDir temp_{"shareq_conf_test"};
  fs::path dir_ = temp_.path();
  std::string conf_path_;
  std::string copy_path_;
  int64_t now_ = 100;
  int saves_ = 0;
  std::vector<std::string> errors_;
  std::vector<std::string> infos_;
};

TEST_F(ConfigHolderTest, AGoodFileIsLoadedAndItsTextKeptOnceAsTheLastGoodCopy) {
  write(conf_path_, conf_with_priority(70));
  auto holder = process();
  auto loaded = holder->current();
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->config().default_priority, 70);
  EXPECT_EQ(loaded->version, 1U);
  EXPECT_EQ(read(copy_path_), conf_with_priority(70));

  write(conf_path_, conf_with_priority(70));  // the same text again (a new inode): no new save
  EXPECT_EQ(holder->reload()->version, 2U);
  EXPECT_EQ(saves_, 1);
  EXPECT_TRUE(errors_.empty());
}

TEST_F(ConfigHolderTest, OnlyRefreshLooksAtTheFileAndAtMostOnceAClockSecond) {
  write(conf_path_, conf_with_priority(70));
  auto holder = process();
  ASSERT_EQ(holder->current()->version, 1U);  // the first use reads the file
  write(conf_path_, conf_with_priority(60));
  now_ += 10;
  // What slurmctld's callbacks call, under its locks: what was published, no stat(), no read.
  EXPECT_EQ(holder->current()->config().default_priority, 70);
  EXPECT_EQ(holder->current()->version, 1U);
  EXPECT_EQ(holder->refresh()->config().default_priority, 60);  // priority/shareq's thread
  EXPECT_EQ(holder->current()->version, 2U);
  write(conf_path_, conf_with_priority(50));
  EXPECT_EQ(holder->refresh()->version, 2U);  // the same clock second: not looked at again
  now_ += 1;
  EXPECT_EQ(holder->refresh()->config().default_priority, 50);
  EXPECT_TRUE(errors_.empty());
}

// scontrol reconfigure only asks (Slurm may hold its locks): the next refresh, by priority/shareq's
// thread, reads the changed file even within the clock second of its last look.
TEST_F(ConfigHolderTest, AReloadRequestMakesTheNextRefreshLookWithinTheSameSecond) {
  write(conf_path_, conf_with_priority(70));
  auto holder = process();
  ASSERT_EQ(holder->refresh()->version, 1U);
  write(conf_path_, conf_with_priority(60));
  holder->request_reload();
  EXPECT_EQ(holder->current()->config().default_priority, 70);  // asking reads nothing
  EXPECT_EQ(holder->refresh()->config().default_priority, 60);
  write(conf_path_, conf_with_priority(50));
  EXPECT_EQ(holder->refresh()->version, 2U);  // the request was taken: the clock paces again
  EXPECT_TRUE(errors_.empty());
}

TEST_F(ConfigHolderTest, ABadFileKeepsThePreviousGoodConfigurationAndItsCopy) {
  write(conf_path_, conf_with_priority(70));
  auto holder = process();
  ASSERT_NE(holder->current(), nullptr);

  write(conf_path_, conf_with_priority(150));
  auto kept = holder->reload();
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->config().default_priority, 70);
  EXPECT_TRUE(logged_error("shareq.conf:3: DefaultPriority")) << errors_.front();
  EXPECT_TRUE(logged_error("keeping the previous good configuration"));
  EXPECT_EQ(read(copy_path_), conf_with_priority(70)) << "a bad file never replaces the copy";
}

TEST_F(ConfigHolderTest, TheNextProcessStartsFromTheCopyWhenTheFileIsBad) {
  write(conf_path_, conf_with_priority(70));
  ASSERT_NE(process()->current(), nullptr);  // the first slurmctld: the copy is saved

  write(conf_path_, conf_with_priority(150));  // then the file goes bad, and slurmctld restarts
  auto restarted = process();
  auto loaded = restarted->current();
  ASSERT_NE(loaded, nullptr) << "the restarted controller has the last good configuration";
  EXPECT_EQ(loaded->config().default_priority, 70);
  EXPECT_TRUE(logged_error("shareq.conf:3: DefaultPriority"));
  EXPECT_TRUE(logged_error("keeping the previous good configuration, saved in " + copy_path_));

  write(conf_path_, conf_with_priority(60));  // fixed: the file itself again, and a new copy
  auto fixed = restarted->reload();
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->config().default_priority, 60);
  EXPECT_EQ(fixed->version, 2U);
  EXPECT_EQ(read(copy_path_), conf_with_priority(60));
}

TEST_F(ConfigHolderTest, WithoutACopyABadFileLeavesNoConfiguration) {
  write(conf_path_, conf_with_priority(150));
  EXPECT_EQ(process()->current(), nullptr);
  EXPECT_TRUE(logged_error("no good configuration yet: jobs with --share are refused"));
  EXPECT_FALSE(fs::exists(copy_path_));
}

TEST_F(ConfigHolderTest, ACopyThatDoesNotParseIsNotUsed) {
  write(copy_path_, "Share=\n");
  write(conf_path_, conf_with_priority(150));
  EXPECT_EQ(process()->current(), nullptr);
  EXPECT_TRUE(logged_error(copy_path_ + ": the saved copy of the last good"));
  EXPECT_TRUE(logged_error("no good configuration yet"));
}

TEST_F(ConfigHolderTest, AFileLargerThanTheBoundIsRefusedUnread) {
  write(conf_path_, conf_with_priority(70) + std::string(kMaxConfigFileBytes, '#'));
  EXPECT_EQ(process()->current(), nullptr);
  EXPECT_TRUE(logged_error("shareq.conf: larger than 4 MiB"));
}

}  // namespace
}  // namespace shareq::ctld
