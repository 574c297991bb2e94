// An HTTP image store on 127.0.0.1 (http_store.py): fetch, 404, an interrupted transfer, and
// concurrent fetches of a slow download going to the server once.
#include <thread>

#include "cache_fixture.hpp"

namespace shareq::imagecache::testing {
namespace {

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    digest_ = store_.put("llama", Bytes(2 << 20, 21));
    ASSERT_NE(server_.port(), 0) << "the test HTTP server did not start";
  }
  CacheOptions Options(const std::string& mode) {
    CacheOptions options;
    options.store = server_.url(mode);
    options.cache_dir = tmp_.path() + "/cache";
    options.transfer.connect_timeout_s = 5;
    options.transfer.stall_timeout_s = 10;
    options.transfer.transfer_timeout_s = 60;
    return options;
  }
  ImageCache Open(const std::string& mode) {
    Result<ImageCache> cache = ImageCache::open(Options(mode));
    EXPECT_TRUE(cache) << cache.error().to_string();
    return std::move(cache).value();
  }
  int ServedImages() {
    std::istringstream log(ReadFile(log_));
    int lines = 0;
    for (std::string line; std::getline(log, line);) ++lines;
    return lines;
  }
  std::vector<std::string> Cached() { return List(tmp_.path() + "/cache/sha256"); }
  // The error of fetching llama with these options (empty when the fetch succeeded).
  static std::string FetchError(const CacheOptions& options) {
    Result<ImageCache> cache = ImageCache::open(options);
    EXPECT_TRUE(cache) << cache.error().to_string();
    if (!cache) return "the cache did not open";
    const Result<CachedImage> image = cache.value().ensure_cached(Ref("llama"), "", 100);
    return image ? std::string() : image.error().message;
  }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  std::string log_ = tmp_.path() + "/requests.log";
  HttpStore server_{store_.dir(), log_};
  std::string digest_;
};

TEST_F(HttpTest, FetchesAndVerifies) {
  ImageCache cache = Open("store");
  const Result<CachedImage> image = cache.ensure_cached(Ref("llama"), "job-1", 100);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_TRUE(image.value().fetched);
  EXPECT_EQ(image.value().digest, digest_);
  EXPECT_EQ(ReadFile(image.value().path), ReadFile(store_.dir() + "/llama"));
  EXPECT_EQ(Mode(image.value().path), 0444u);
  EXPECT_FALSE(cache.ensure_cached(Ref("llama"), "job-2", 200).value().fetched);
  EXPECT_EQ(ServedImages(), 1);
}

TEST_F(HttpTest, UnknownImageIs404) {
  ImageCache cache = Open("store");
  const Result<CachedImage> image = cache.ensure_cached(Ref("mistral"), "", 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("image mistral"), std::string::npos);
  EXPECT_NE(image.error().message.find("HTTP status 404"), std::string::npos)
      << image.error().message;
  EXPECT_TRUE(Cached().empty());
}

TEST_F(HttpTest, ImageMissingButDigestPublishedIs404) {
  ::unlink((store_.dir() + "/llama").c_str());
  ImageCache cache = Open("store");
  const Result<CachedImage> image = cache.ensure_cached(Ref("llama"), "", 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("HTTP status 404"), std::string::npos);
  EXPECT_TRUE(Cached().empty());
}

TEST_F(HttpTest, ServerClosingMidTransferLeavesNothing) {
  ImageCache cache = Open("cut");
  const Result<CachedImage> image = cache.ensure_cached(Ref("llama"), "job-1", 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("image llama: fetching http://127.0.0.1"), std::string::npos)
      << image.error().message;
  EXPECT_NE(image.error().message.find(
                "/cut/llama failed: the store closed the connection after 1048576 of the 2097152 "
                "bytes it announced"),
            std::string::npos)
      << image.error().message;
  EXPECT_TRUE(Cached().empty());
  EXPECT_TRUE(List(tmp_.path() + "/cache/pins").empty());
}

TEST_F(HttpTest, AStalledTransferNamesTheStallLimit) {
  CacheOptions options = Options("stall");
  options.transfer.stall_timeout_s = 2;
  const std::string error = FetchError(options);
  EXPECT_NE(error.find("/stall/llama failed: the store sent less than 1024 bytes/s for 2 s (the "
                       "stall limit) (1024 bytes received)"),
            std::string::npos)
      << error;
  EXPECT_TRUE(Cached().empty());
}

TEST_F(HttpTest, ATransferOverItsWholeLimitNamesThatLimit) {
  CacheOptions options = Options("stall");
  options.transfer.transfer_timeout_s = 2;  // before the stall limit (10 s)
  const std::string error = FetchError(options);
  EXPECT_NE(error.find("/stall/llama failed: not done within 2 s (the limit for a whole "
                       "transfer) (1024 bytes received)"),
            std::string::npos)
      << error;
}

TEST_F(HttpTest, CorruptedImageOverHttp) {
  WriteFile(store_.dir() + "/llama", Bytes(2 << 20, 22));
  ImageCache cache = Open("store");
  const Result<CachedImage> image = cache.ensure_cached(Ref("llama"), "", 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("digest mismatch"), std::string::npos);
  EXPECT_TRUE(Cached().empty());
}

TEST_F(HttpTest, UnreachableStoreFailsWithinTheTimeout) {
  CacheOptions options = Options("store");
  options.store = "http://127.0.0.1:1/store";  // nothing listens on port 1
  Result<ImageCache> cache = ImageCache::open(options);
  ASSERT_TRUE(cache);
  const Result<CachedImage> image = cache.value().ensure_cached(Ref("llama"), "", 100);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("image llama"), std::string::npos);
  // Refused at once: curl's words ("Couldn't connect to server" in curl 7, "Could not connect
  // to server" in curl 8), not a time limit.
  EXPECT_NE(image.error().message.find("connect to server"), std::string::npos)
      << image.error().message;
}

TEST_F(HttpTest, ConcurrentSlowFetchesHitTheServerOnce) {
  constexpr int kThreads = 4;
  std::vector<int> fetched(kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Result<ImageCache> cache = ImageCache::open(Options("slow"));
      if (!cache) return;
      Result<CachedImage> image = cache.value().ensure_cached(Ref("llama"), "", 100);
      if (image) fetched[i] = image.value().fetched ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::count(fetched.begin(), fetched.end(), -1), 0);
  EXPECT_EQ(std::count(fetched.begin(), fetched.end(), 1), 1);
  EXPECT_EQ(ServedImages(), 1);
}

}  // namespace
}  // namespace shareq::imagecache::testing
