// The state files' writer thread (plugins/ctld/state_writer.hpp) on a temporary directory: what
// is queued is written, the latest text wins, and a write that fails (a directory where the file
// goes) is tried again until it succeeds without anything new being queued, each new reason
// reported once, the recovery reported, and flush() bounded while the file cannot be written.
#include "state_writer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "temp_dir.hpp"

namespace shareq::ctld {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class StateWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = (dir_ / "shareq_state").string(); }

  StateWriter::Report recorder() {
    return [this](bool error, const std::string& message) {
      const std::lock_guard<std::mutex> lock(reports_mutex_);
      reports_.emplace_back(error, message);
    };
  }
  std::vector<std::pair<bool, std::string>> reports() {
    const std::lock_guard<std::mutex> lock(reports_mutex_);
    return reports_;
  }
  [[nodiscard]] std::string file_text() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void block_path() const {
    fs::create_directory(path_);
    std::ofstream(fs::path(path_) / "blocker") << "a directory where the state file goes\n";
  }
  void unblock_path() const { fs::remove_all(path_); }

  // Polls (bounded) until `done`; false when it never held.
  template <typename Done>
  static bool eventually(Done done) {
    for (int i = 0; i < 1000; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(5ms);
    }
    return done();
  }

  TempDir temp_{"shareq_writer_test"};
  fs::path dir_ = temp_.path();
  std::string path_;
  std::mutex reports_mutex_;
  std::vector<std::pair<bool, std::string>> reports_;
};

TEST_F(StateWriterTest, WritesWhatIsQueuedAndTheLatestTextWins) {
  StateWriter writer(recorder());
  writer.queue(path_, "first\n", Durability::ProcessCrash, "test");
  writer.queue(path_, "second\n", Durability::ProcessCrash, "test");
  writer.flush();
  EXPECT_EQ(file_text(), "second\n");
  EXPECT_TRUE(reports().empty());
}

TEST_F(StateWriterTest, RetriesAFailedWriteUntilItSucceedsWithNothingNewQueued) {
  StateWriter writer(recorder(), StateWriter::Retry{5ms, 20ms});
  block_path();
  writer.queue(path_, "kept\n", Durability::ProcessCrash, "claims");
  ASSERT_TRUE(eventually([&] { return !reports().empty(); }));
  // Several more attempts fail for the same reason: reported once. Each flush() returns when its
  // attempt is done, reports made, however many the retry timer made meanwhile (they count too).
  constexpr int kFlushes = 3;
  for (int i = 0; i < kFlushes; ++i) writer.flush();
  auto said = reports();
  ASSERT_EQ(said.size(), 1U);
  EXPECT_TRUE(said[0].first);
  EXPECT_NE(said[0].second.find("claims: " + path_), std::string::npos) << said[0].second;
  EXPECT_NE(said[0].second.find("trying again"), std::string::npos) << said[0].second;

  // Written by a retry on the timer, nothing new queued and no flush.
  unblock_path();
  ASSERT_TRUE(eventually([&] { return fs::is_regular_file(path_) && file_text() == "kept\n"; }));
  ASSERT_TRUE(eventually([&] { return reports().size() == 2; }));
  said = reports();
  EXPECT_FALSE(said[1].first);
  // "written after N failed attempt(s)": the first, the flushes' and the timer's, so that the
  // single failure report above stood for at least 1 + kFlushes attempts.
  const std::string after = "written after ";
  const size_t at = said[1].second.find(after);
  ASSERT_NE(at, std::string::npos) << said[1].second;
  EXPECT_GE(std::stoi(said[1].second.substr(at + after.size())), 1 + kFlushes) << said[1].second;
}

TEST_F(StateWriterTest, ANewerTextReplacesTheOneThatFailed) {
  StateWriter writer(recorder(), StateWriter::Retry{5ms, 20ms});
  block_path();
  writer.queue(path_, "old\n", Durability::ProcessCrash, "warm");
  ASSERT_TRUE(eventually([&] { return !reports().empty(); }));
  writer.queue(path_, "new\n", Durability::ProcessCrash, "warm");
  unblock_path();
  ASSERT_TRUE(eventually([&] { return fs::is_regular_file(path_) && file_text() == "new\n"; }));
  writer.flush();
  EXPECT_EQ(file_text(), "new\n");
}

TEST_F(StateWriterTest, FlushTriesAFailedWriteOnceMoreAndReturns) {
  // Retries far apart: only flush() makes the writer try again now.
  StateWriter writer(recorder(), StateWriter::Retry{1h, 1h});
  block_path();
  writer.queue(path_, "text\n", Durability::ProcessCrash, "usage");
  ASSERT_TRUE(eventually([&] { return !reports().empty(); }));
  writer.flush();  // returns although the file still cannot be written
  unblock_path();
  writer.flush();
  EXPECT_EQ(file_text(), "text\n");
  EXPECT_FALSE(reports().back().first);
}

TEST_F(StateWriterTest, TheDestructorTriesOnceMoreAndSaysWhatWasNotWritten) {
  {
    StateWriter writer(recorder(), StateWriter::Retry{1h, 1h});
    block_path();
    writer.queue(path_, "text\n", Durability::ProcessCrash, "warm");
    ASSERT_TRUE(eventually([&] { return !reports().empty(); }));
  }
  const auto said = reports();
  ASSERT_EQ(said.size(), 2U);
  EXPECT_NE(said[1].second.find("not written"), std::string::npos) << said[1].second;
}

TEST_F(StateWriterTest, AnExceptionOnItsThreadIsReportedAndTheWriterGoesOn) {
  // The first report throws, as a bad_alloc in the writer's work would: from a std::thread that
  // ends the process (std::terminate) unless the writer catches it.
  bool thrown = false;  // read and written on the writer's thread only
  auto record = recorder();
  StateWriter writer(
      [&](bool error, const std::string& message) {
        if (!std::exchange(thrown, true)) throw std::runtime_error("out of memory");
        record(error, message);
      },
      StateWriter::Retry{1h, 1h});
  block_path();
  writer.queue(path_, "lost\n", Durability::ProcessCrash, "warm");  // fails; its report throws
  ASSERT_TRUE(eventually([&] { return !reports().empty(); }));
  const auto said = reports();
  EXPECT_TRUE(said[0].first);
  EXPECT_NE(said[0].second.find("state writer: out of memory"), std::string::npos)
      << said[0].second;
  unblock_path();
  writer.queue(path_, "next\n", Durability::ProcessCrash, "warm");
  writer.flush();
  EXPECT_EQ(file_text(), "next\n");
}

}  // namespace
}  // namespace shareq::ctld
