// Pins (per holder, on disk) and LRU eviction under ImageCacheSize.
#include <tuple>

#include "cache_fixture.hpp"

namespace shareq::imagecache::testing {
namespace {

class PinsEvictionTest : public ::testing::Test {
 protected:
  // Images a, b, c, d of 100 kB each; a cache of 250 kB.
  void SetUp() override {
    for (const char* name : {"a", "b", "c", "d"}) {
      digest_[name] = store_.put(name, Bytes(100'000, static_cast<unsigned>(name[0])));
    }
    CacheOptions options;
    options.store = store_.dir();
    options.cache_dir = tmp_.path() + "/cache";
    options.capacity_bytes = 250'000;
    Result<ImageCache> cache = ImageCache::open(options);
    ASSERT_TRUE(cache);
    cache_.emplace(std::move(cache).value());
  }
  std::vector<std::string> Cached(std::vector<std::string> names) {
    std::vector<std::string> digests;
    for (const std::string& name : names) digests.push_back(digest_[name]);
    std::sort(digests.begin(), digests.end());
    return digests;
  }
  std::vector<std::string> InCache() { return List(tmp_.path() + "/cache/sha256"); }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  std::map<std::string, std::string> digest_;
  std::optional<ImageCache> cache_;
};

TEST_F(PinsEvictionTest, PinAndUnpinPerHolder) {
  const std::string& a = digest_["a"];
  EXPECT_TRUE(cache_->pin(a, "job-1").value());
  EXPECT_FALSE(cache_->pin(a, "job-1").value()) << "already pinned";
  EXPECT_TRUE(cache_->pin(a, "wp-7").value());
  EXPECT_EQ(cache_->holders(a).value(), (std::vector<std::string>{"job-1", "wp-7"}));
  EXPECT_TRUE(cache_->unpin(a, "job-1").value());
  EXPECT_FALSE(cache_->unpin(a, "job-1").value()) << "not pinned any more";
  EXPECT_TRUE(cache_->unpin(a, "wp-7").value());
  EXPECT_TRUE(cache_->holders(a).value().empty());
  EXPECT_TRUE(List(tmp_.path() + "/cache/pins").empty()) << "the last unpin removes the folder";
}

TEST_F(PinsEvictionTest, EveryPinIsListedByDigestThenHolder) {
  std::vector<Pin> expected = {
      {digest_["a"], "job-1"}, {digest_["a"], "warm-7"}, {digest_["b"], "job-2"}};
  for (const Pin& pin : expected) ASSERT_TRUE(cache_->pin(pin.digest, pin.holder));
  ::mkdir((tmp_.path() + "/cache/pins/not-a-digest").c_str(), 0755);  // skipped
  std::sort(expected.begin(), expected.end(), [](const Pin& x, const Pin& y) {
    return std::tie(x.digest, x.holder) < std::tie(y.digest, y.holder);
  });
  Result<std::vector<Pin>> pins = cache_->pins();
  ASSERT_TRUE(pins) << pins.error().to_string();
  ASSERT_EQ(pins.value().size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(pins.value()[i].digest, expected[i].digest) << i;
    EXPECT_EQ(pins.value()[i].holder, expected[i].holder) << i;
  }
}

TEST_F(PinsEvictionTest, PinsRejectBadArguments) {
  for (const char* holder : {"", ".hidden", "a/b", "a b", "../x"}) {
    SCOPED_TRACE(holder);
    EXPECT_FALSE(cache_->pin(digest_["a"], holder));
  }
  EXPECT_FALSE(cache_->pin("not-a-digest", "job-1"));
  EXPECT_FALSE(cache_->pin(std::string(64, 'A'), "job-1")) << "upper case is not a cache name";
}

TEST_F(PinsEvictionTest, PinsSurviveARestart) {
  ASSERT_TRUE(cache_->pin(digest_["a"], "wp-3"));
  CacheOptions options = cache_->options();
  Result<ImageCache> again = ImageCache::open(options);
  ASSERT_TRUE(again);
  EXPECT_EQ(again.value().holders(digest_["a"]).value(), std::vector<std::string>{"wp-3"});
}

TEST_F(PinsEvictionTest, LeastRecentlyUsedGoesFirst) {
  ASSERT_TRUE(cache_->ensure_cached(Ref("a"), "", 100));
  ASSERT_TRUE(cache_->ensure_cached(Ref("b"), "", 200));
  ASSERT_TRUE(cache_->ensure_cached(Ref("a"), "", 300));  // a used again: b is now the oldest
  ASSERT_TRUE(cache_->ensure_cached(Ref("c"), "", 400));
  EXPECT_EQ(InCache(), Cached({"a", "c"}));
  const Result<std::vector<warm::CacheEntry>> entries = cache_->entries();
  ASSERT_TRUE(entries);
  int64_t total = 0;
  for (const warm::CacheEntry& entry : entries.value()) total += entry.size;
  EXPECT_LE(total, 250'000);
}

TEST_F(PinsEvictionTest, PinnedImagesAreNeverEvicted) {
  ASSERT_TRUE(cache_->ensure_cached(Ref("a"), "wp-1", 100));
  ASSERT_TRUE(cache_->ensure_cached(Ref("b"), "job-2", 200));
  ASSERT_TRUE(cache_->ensure_cached(Ref("c"), "job-3", 300));
  EXPECT_EQ(InCache(), Cached({"a", "b", "c"})) << "over the size: all pinned, all kept";
  ASSERT_TRUE(cache_->unpin(digest_["b"], "job-2"));
  ASSERT_TRUE(cache_->ensure_cached(Ref("d"), "job-4", 400));
  EXPECT_EQ(InCache(), Cached({"a", "c", "d"})) << "the unpinned b went";
}

TEST_F(PinsEvictionTest, TheImageJustFetchedIsKeptEvenUnpinned) {
  ASSERT_TRUE(cache_->ensure_cached(Ref("a"), "job-1", 100));
  ASSERT_TRUE(cache_->ensure_cached(Ref("b"), "job-2", 200));
  ASSERT_TRUE(cache_->ensure_cached(Ref("c"), "", 300));
  EXPECT_EQ(InCache(), Cached({"a", "b", "c"}));
  EXPECT_EQ(cache_->evict().value(), std::vector<std::string>{digest_["c"]})
      << "a later pass may take it";
}

TEST_F(PinsEvictionTest, EvictionSkipsAnImageInUse) {
  ASSERT_TRUE(cache_->ensure_cached(Ref("a"), "", 100));
  ASSERT_TRUE(cache_->ensure_cached(Ref("b"), "", 200));
  const int held = ::open((tmp_.path() + "/cache/locks/" + digest_["a"] + ".lock").c_str(),
                          O_RDWR | O_CREAT, 0600);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  const Result<std::vector<std::string>> evicted = cache_->evict(200'000);
  ::close(held);
  ASSERT_TRUE(evicted);
  EXPECT_EQ(evicted.value(), std::vector<std::string>{digest_["b"]});
}

}  // namespace
}  // namespace shareq::imagecache::testing
