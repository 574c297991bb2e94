// The image cache's metrics on disk (src/imagecache/cache_metrics.hpp): the counters survive in
// CACHE/metrics.state from one process to the next, the textfile is replaced whole and readable
// by the node exporter, and an unreadable state file is set aside, not fatal.
#include "imagecache/cache_metrics.hpp"

#include <gtest/gtest.h>

#include "cache_fixture.hpp"

namespace shareq::imagecache {
namespace {

using testing::Bytes;
using testing::Mode;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
using Outcome = metrics::ImageRequest::Outcome;

class CacheMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir((tmp_.path() + "/store").c_str(), 0755);
    ::mkdir((tmp_.path() + "/textfiles").c_str(), 0755);
    CacheOptions options;
    options.store = tmp_.path() + "/store";
    options.cache_dir = tmp_.path() + "/cache";
    options.capacity_bytes = 1 << 20;
    auto opened = ImageCache::open(options);
    ASSERT_TRUE(opened) << opened.error().to_string();
    cache_.emplace(std::move(opened).value());
    prom_ = tmp_.path() + "/textfiles/shareq.prom";
  }

  [[nodiscard]] std::string Update(std::optional<metrics::ImageRequest> request) const {
    Result<std::string> note = update_cache_metrics(*cache_, request, prom_);
    EXPECT_TRUE(note) << note.error().to_string();
    return note ? note.value() : "";
  }

  TempDir tmp_;
  std::optional<ImageCache> cache_;
  std::string prom_;
};

bool Has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST_F(CacheMetrics, CountsAddUpAcrossCallsAndTheTextfileIsReadable) {
  EXPECT_EQ(Update(metrics::ImageRequest{Outcome::Fetched, 2, 300}), "");
  EXPECT_EQ(Update(metrics::ImageRequest{Outcome::Hit, 0, 0}), "");
  EXPECT_EQ(Update(std::nullopt), "");
  const std::string text = ReadFile(prom_);
  EXPECT_TRUE(Has(text, "shareq_image_cache_fetches_total{result=\"success\"} 1\n")) << text;
  EXPECT_TRUE(Has(text, "shareq_image_cache_hits_total 1\n")) << text;
  EXPECT_TRUE(Has(text, "shareq_image_cache_fetched_bytes_total 300\n")) << text;
  EXPECT_TRUE(Has(text, "shareq_image_cache_limit_bytes 1048576\n")) << text;
  EXPECT_EQ(Mode(prom_), 0644u);
  EXPECT_EQ(Mode(metrics_state_path(*cache_)), 0600u);
  // Nothing but the textfile in the node exporter's directory: no temporary file left.
  EXPECT_EQ(testing::List(tmp_.path() + "/textfiles"), std::vector<std::string>{"shareq.prom"});
}

TEST_F(CacheMetrics, GaugesAreTheCacheAsItIsNow) {
  const std::string digest = testing::Store(tmp_.path() + "/store").put("img", Bytes(1000, 7));
  auto cached = cache_->ensure_cached(testing::Ref("img"), "job-1", 100);
  ASSERT_TRUE(cached) << cached.error().to_string();
  (void)Update(std::nullopt);
  std::string text = ReadFile(prom_);
  EXPECT_TRUE(Has(text, "shareq_image_cache_bytes 1000\n")) << text;
  EXPECT_TRUE(Has(text, "shareq_image_cache_images 1\n")) << text;
  EXPECT_TRUE(Has(text, "shareq_image_cache_pinned_images 1\n")) << text;
  ASSERT_TRUE(cache_->unpin(digest, "job-1"));
  (void)Update(std::nullopt);
  text = ReadFile(prom_);
  EXPECT_TRUE(Has(text, "shareq_image_cache_pinned_images 0\n")) << text;
}

TEST_F(CacheMetrics, AnUnreadableStateIsSetAsideAndCountingGoesOn) {
  WriteFile(metrics_state_path(*cache_), "garbage\n");
  const std::string note = Update(metrics::ImageRequest{Outcome::Failed, 0, 0});
  EXPECT_TRUE(Has(note, "set aside")) << note;
  EXPECT_EQ(ReadFile(metrics_state_path(*cache_) + ".bad"), "garbage\n");
  EXPECT_TRUE(Has(ReadFile(prom_), "shareq_image_cache_fetches_total{result=\"failure\"} 1\n"));
}

TEST_F(CacheMetrics, AMissingTextfileDirectoryIsAnErrorNamingTheKey) {
  Result<std::string> note = update_cache_metrics(
      *cache_, metrics::ImageRequest{Outcome::Hit, 0, 0}, tmp_.path() + "/nowhere/shareq.prom");
  ASSERT_FALSE(note);
  EXPECT_EQ(note.error().field, "ImageCacheMetricsFile");
  EXPECT_TRUE(Has(note.error().message, "nowhere")) << note.error().message;
}

}  // namespace
}  // namespace shareq::imagecache
