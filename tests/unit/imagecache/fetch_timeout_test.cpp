// ImageFetchTimeout (CacheOptions::fetch_timeout_s) and the whole-transfer limit: a directory
// store's copy, a store that trickles just fast enough never to trip the stall limit, and the
// wait for another process's fetch of the same image all end at the limit, leaving nothing in
// the cache.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "cache_fixture.hpp"
#include "imagecache/fs_util.hpp"

namespace shareq::imagecache::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Whether `fd` has something to read within `within`.
bool Readable(int fd, std::chrono::milliseconds within) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(within.count())) == 1;
}

// Reads `fd` to its end; the bytes read.
int64_t Drain(int fd) {
  int64_t total = 0;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    total += n;
  }
  return total;
}

// The copy is paced by its write side, a pipe that the test drains only once the limit has
// passed: the first chunk's write waits for the test, and the clock check after it must stop
// the copy there. Nothing here depends on how fast the copy goes.
TEST(FetchTimeout, ADirectoryCopyStopsAtItsWholeTransferLimit) {
  TempDir tmp;
  Store store(tmp.path() + "/store");
  constexpr int64_t kSize = int64_t{4} << 20;  // four of the copy's 1 MiB chunks
  store.put("llama", Bytes(kSize, 3));
  Result<ImageStore> parsed = ImageStore::parse(store.dir());
  ASSERT_TRUE(parsed);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  TransferLimits limits;
  limits.transfer_timeout_s = 1;
  std::optional<Result<int64_t>> copied;
  std::thread copier([&] {
    Sha256 hash;
    copied = parsed.value().fetch("llama", pipe_fds[1], hash, limits);
    ::close(pipe_fds[1]);
  });
  // The copy set its deadline before its first byte reached the pipe.
  const bool started = Readable(pipe_fds[0], std::chrono::seconds(30));
  std::this_thread::sleep_until(Clock::now() + std::chrono::seconds(limits.transfer_timeout_s));
  const int64_t drained = Drain(pipe_fds[0]);
  copier.join();
  ::close(pipe_fds[0]);
  ASSERT_TRUE(started) << "the copy wrote nothing within 30 s";
  ASSERT_TRUE(copied.has_value());
  ASSERT_FALSE(copied->ok()) << "the copy went on past its limit: " << drained << " bytes";
  EXPECT_TRUE(Contains(copied->error().message,
                       "image llama: copying " + store.dir() +
                           "/llama: not done within 1 s (the limit for a whole transfer) ("))
      << copied->error().message;
  EXPECT_LT(drained, kSize);
}

TEST(FetchTimeout, ADirectoryCopyWithinItsLimitIsWhole) {
  TempDir tmp;
  Store store(tmp.path() + "/store");
  const std::string data = Bytes(3 << 20, 4);
  store.put("llama", data);
  CacheOptions options;
  options.store = store.dir();
  options.cache_dir = tmp.path() + "/cache";
  options.fetch_timeout_s = 600;
  Result<ImageCache> cache = ImageCache::open(options);
  ASSERT_TRUE(cache) << cache.error().to_string();
  const Result<CachedImage> image = cache.value().ensure_cached(Ref("llama"), "job-1", 100);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_EQ(ReadFile(image.value().path), data);
}

class FetchTimeoutHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    digest_ = store_.put("llama", Bytes(2 << 20, 21));  // about 100 s at the trickle's pace
    ASSERT_NE(server_.port(), 0) << "the test HTTP server did not start";
  }
  // The node's limits (plugins/spank/node.cpp): only ImageFetchTimeout can stop a trickle.
  CacheOptions Options(const std::string& mode) {
    CacheOptions options;
    options.store = server_.url(mode);
    options.cache_dir = tmp_.path() + "/cache";
    options.transfer.connect_timeout_s = 10;
    options.transfer.stall_timeout_s = 30;
    options.fetch_timeout_s = 2;
    return options;
  }
  std::vector<std::string> Cached() { return List(tmp_.path() + "/cache/sha256"); }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  HttpStore server_{store_.dir(), tmp_.path() + "/requests.log"};
  std::string digest_;
};

TEST_F(FetchTimeoutHttp, ATricklingStoreIsCutOffAtImageFetchTimeoutAndLeavesNothing) {
  Result<ImageCache> cache = ImageCache::open(Options("trickle"));
  ASSERT_TRUE(cache) << cache.error().to_string();
  const auto start = Clock::now();
  const Result<CachedImage> image = cache.value().ensure_cached(Ref("llama"), "job-1", 100);
  const auto took = Clock::now() - start;
  ASSERT_FALSE(image) << "fetched at 20 KiB/s within 2 s?";
  const std::string& message = image.error().message;
  EXPECT_TRUE(Contains(message, "image llama: fetching " + server_.url("trickle") +
                                    "/llama failed: not done within "))
      << message;
  EXPECT_TRUE(Contains(message, " s (the limit for a whole transfer)")) << message;
  EXPECT_TRUE(message.ends_with("; not cached within ImageFetchTimeout (2 s)")) << message;
  EXPECT_LT(took, std::chrono::seconds(30)) << "the fetch ran on past its limit";
  EXPECT_TRUE(Cached().empty()) << "a partial image was left in the cache";
  EXPECT_TRUE(List(tmp_.path() + "/cache/pins").empty());
}

// A job whose image another process is fetching waits for that fetch as long as its own
// ImageFetchTimeout allows (not lock_timeout_ms, here ten minutes), then fails cleanly.
TEST(FetchTimeout, WaitingForAnotherFetchEndsAtImageFetchTimeout) {
  TempDir tmp;
  Store store(tmp.path() + "/store");
  const std::string digest = store.put("llama", Bytes(100'000, 5));
  CacheOptions options;
  options.store = store.dir();
  options.cache_dir = tmp.path() + "/cache";
  options.lock_timeout_ms = 600'000;
  options.fetch_timeout_s = 1;
  Result<ImageCache> cache = ImageCache::open(options);
  ASSERT_TRUE(cache) << cache.error().to_string();
  Result<fs::FileLock> taken =
      fs::FileLock::acquire(options.cache_dir + "/locks/" + digest + ".lock", 10'000);
  ASSERT_TRUE(taken) << taken.error().to_string();
  std::optional<fs::FileLock> other_fetch(std::move(taken).value());
  auto waiting = std::async(
      std::launch::async, [&] { return cache.value().ensure_cached(Ref("llama"), "job-2", 100); });
  const bool ended = waiting.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  other_fetch.reset();  // lets a wait that ran on end, so the test ends
  const Result<CachedImage> image = waiting.get();
  ASSERT_TRUE(ended) << "still waiting for the lock after 30 s";
  ASSERT_FALSE(image);
  EXPECT_TRUE(Contains(image.error().message, "image llama: timed out after "))
      << image.error().message;
  EXPECT_TRUE(image.error().message.ends_with("; not cached within ImageFetchTimeout (1 s)"))
      << image.error().message;
  EXPECT_TRUE(List(options.cache_dir + "/sha256").empty());
}

}  // namespace
}  // namespace shareq::imagecache::testing
