// A directory store's published digest (NAME.sha256) is read by slurmctld's image-store thread,
// which job_submit's fini joins under slurmctld's write locks: what is not a regular file is
// refused unread. A FIFO without a writer used to block the open forever (and with it every later
// digest question, and a reconfigure).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include <gtest/gtest.h>

#include "../ctld/temp_dir.hpp"
#include "imagecache/store.hpp"

namespace shareq::imagecache {
namespace {

using namespace std::chrono_literals;

class StoreDigestFileTest : public ::testing::Test {
 protected:
  Result<std::string> digest_of(const std::string& name) {
    const Result<ImageStore> store = ImageStore::parse(dir_.string());
    EXPECT_TRUE(store);
    return store.value().published_digest(name, TransferLimits{});
  }

  ctld::TempDir temp_{"store_digest_file_test"};
  std::filesystem::path dir_ = temp_.path();
};

TEST_F(StoreDigestFileTest, ARegularFileIsRead) {
  std::ofstream(dir_ / "llama.sha256") << std::string(64, 'a') << "  llama\n";
  const Result<std::string> digest = digest_of("llama");
  ASSERT_TRUE(digest) << digest.error().to_string();
  EXPECT_EQ(digest.value(), std::string(64, 'a'));
}

TEST_F(StoreDigestFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = (dir_ / "llama.sha256").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::future<Result<std::string>> answer =
      std::async(std::launch::async, [&] { return digest_of("llama"); });
  if (answer.wait_for(10s) != std::future_status::ready) {
    // The reader waits in open(): give it a writer, so the test fails instead of hanging.
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    answer.wait();
    FAIL() << "reading the digest waited for a writer on a FIFO";
  }
  const Result<std::string> digest = answer.get();
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("llama.sha256: is a FIFO, not a regular file"),
            std::string::npos)
      << digest.error().message;
}

TEST_F(StoreDigestFileTest, ADirectoryIsRefused) {
  std::filesystem::create_directory(dir_ / "llama.sha256");
  const Result<std::string> digest = digest_of("llama");
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("is a directory, not a regular file"), std::string::npos)
      << digest.error().message;
}

}  // namespace
}  // namespace shareq::imagecache
