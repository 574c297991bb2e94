// Several threads and several processes asking for one image at once fetch it once; a fetch
// that holds the lock too long makes the others time out cleanly.
#include <thread>

#include "cache_fixture.hpp"

namespace shareq::imagecache::testing {
namespace {

class ConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override { digest_ = store_.put("big", Bytes(8 << 20, 11)); }
  CacheOptions Options() {
    CacheOptions options;
    options.store = store_.dir();
    options.cache_dir = tmp_.path() + "/cache";
    options.lock_timeout_ms = 60'000;
    return options;
  }
  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  std::string digest_;
};

TEST_F(ConcurrencyTest, ThreadsFetchOnce) {
  constexpr int kThreads = 8;
  std::vector<int> fetched(kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Result<ImageCache> cache = ImageCache::open(Options());
      if (!cache) return;
      Result<CachedImage> image =
          cache.value().ensure_cached(Ref("big"), "job-" + std::to_string(i), 100 + i);
      if (image && image.value().digest == digest_) fetched[i] = image.value().fetched ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::count(fetched.begin(), fetched.end(), -1), 0) << "every thread got the image";
  EXPECT_EQ(std::count(fetched.begin(), fetched.end(), 1), 1) << "exactly one fetched it";
  EXPECT_EQ(List(tmp_.path() + "/cache/sha256"), std::vector<std::string>{digest_});
  EXPECT_EQ(List(tmp_.path() + "/cache/pins/" + digest_).size(), size_t{kThreads});
}

TEST_F(ConcurrencyTest, ProcessesFetchOnce) {
  constexpr int kProcesses = 6;
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(gate[1]);
      char go;
      (void)!::read(gate[0], &go, 1);  // all start together when the gate closes
      Result<ImageCache> cache = ImageCache::open(Options());
      if (!cache) ::_exit(1);
      Result<CachedImage> image = cache.value().ensure_cached(Ref("big"), "", 100);
      if (!image || image.value().digest != digest_) ::_exit(2);
      ::_exit(image.value().fetched ? 10 : 11);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  int fetched = 0;
  int served = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    fetched += WEXITSTATUS(status) == 10;
    served += WEXITSTATUS(status) == 11;
  }
  EXPECT_EQ(fetched, 1);
  EXPECT_EQ(served, kProcesses - 1);
  EXPECT_EQ(List(tmp_.path() + "/cache/sha256"), std::vector<std::string>{digest_});
}

TEST_F(ConcurrencyTest, WaitingForTheLockIsBounded) {
  CacheOptions options = Options();
  options.lock_timeout_ms = 200;
  Result<ImageCache> cache = ImageCache::open(options);
  ASSERT_TRUE(cache);
  const int held =
      ::open((tmp_.path() + "/cache/locks/" + digest_ + ".lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  const Result<CachedImage> image = cache.value().ensure_cached(Ref("big"), "", 1);
  ::close(held);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("image big: timed out after 200 ms"), std::string::npos)
      << image.error().message;
  EXPECT_TRUE(List(tmp_.path() + "/cache/sha256").empty());
  EXPECT_TRUE(cache.value().ensure_cached(Ref("big"), "", 2)) << "fine once the lock is free";
}

}  // namespace
}  // namespace shareq::imagecache::testing
