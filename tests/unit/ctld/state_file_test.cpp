// plugins/ctld/state_file.hpp: the state files in StateSaveLocation (warm pools, reclaims in
// flight) are read on first use under slurmctld's and shareq's locks, so what is not a regular
// file is not read: a FIFO there used to block the controller for good.
#include "state_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace shareq::ctld {
namespace {

using namespace std::chrono_literals;

class StateFileTest : public ::testing::Test {
 protected:
  TempDir temp_{"state_file_test"};
  std::string path_ = (temp_.path() / "shareq_warm_pools").string();
};

TEST_F(StateFileTest, AWrittenFileReadsBackWhole) {
  const std::string text(20000, 'x');  // more than one read
  ASSERT_EQ(write_file_atomically(path_, text), std::nullopt);
  EXPECT_EQ(read_state_file(path_), text);
}

TEST_F(StateFileTest, NoFileReadsAsNothingSaved) {
  EXPECT_EQ(read_state_file(path_), std::nullopt);
}

TEST_F(StateFileTest, AFifoIsNotReadAndDoesNotBlock) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  std::future<std::optional<std::string>> read =
      std::async(std::launch::async, [&] { return read_state_file(path_); });
  if (read.wait_for(10s) != std::future_status::ready) {
    const int writer = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK);  // so the test ends
    if (writer >= 0) ::close(writer);
    read.wait();
    FAIL() << "reading the state file waited for a writer on a FIFO";
  }
  EXPECT_EQ(read.get(), std::nullopt);
  // The next save replaces it with a regular file.
  ASSERT_EQ(write_file_atomically(path_, "saved\n"), std::nullopt);
  EXPECT_EQ(read_state_file(path_), "saved\n");
}

}  // namespace
}  // namespace shareq::ctld
