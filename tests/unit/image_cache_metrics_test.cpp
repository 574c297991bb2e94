// The node image cache's metrics, pure part (src/metrics/image_cache_metrics.hpp): counting
// requests, the durable state file's text, and the Prometheus textfile.
#include "metrics/image_cache_metrics.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace shareq::metrics {
namespace {

using Outcome = ImageRequest::Outcome;

bool Contains(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST(ImageCacheMetrics, AHitCountsOnlyAsAHit) {
  ImageCacheCounters c;
  record(c, {Outcome::Hit, 3.0, 999});
  ImageCacheCounters expected;
  expected.hits = 1;
  EXPECT_EQ(c, expected);
}

TEST(ImageCacheMetrics, AFailureCountsOnlyAsAFailure) {
  ImageCacheCounters c;
  record(c, {Outcome::Failed, 3.0, 999});
  ImageCacheCounters expected;
  expected.fetch_failures = 1;
  EXPECT_EQ(c, expected);
}

TEST(ImageCacheMetrics, AFetchFillsEveryBucketFromItsTimeUp) {
  ImageCacheCounters c;
  record(c, {Outcome::Fetched, 2.5, 1000});  // exactly on the 2.5 bound: in it
  record(c, {Outcome::Fetched, 0.2, 24});
  EXPECT_EQ(c.fetch_successes, 2u);
  EXPECT_EQ(c.fetched_bytes, 1024u);
  EXPECT_EQ(c.fetch_milliseconds_sum, 2700u);
  EXPECT_EQ(c.fetch_seconds_buckets[0], 1u);  // le 0.5
  EXPECT_EQ(c.fetch_seconds_buckets[1], 1u);  // le 1
  EXPECT_EQ(c.fetch_seconds_buckets[2], 2u);  // le 2.5
  EXPECT_EQ(c.fetch_seconds_buckets.back(), 2u);
}

TEST(ImageCacheMetrics, AFetchSlowerThanEveryBoundIsOnlyInInf) {
  ImageCacheCounters c;
  record(c, {Outcome::Fetched, 5000, 1});
  EXPECT_EQ(c.fetch_seconds_buckets.back(), 0u);
  EXPECT_EQ(c.fetch_successes, 1u);
}

TEST(ImageCacheMetrics, NegativeOrNonFiniteValuesCountAsZero) {
  ImageCacheCounters c;
  record(c, {Outcome::Fetched, -4, -10});
  record(c, {Outcome::Fetched, std::numeric_limits<double>::quiet_NaN(), 0});
  EXPECT_EQ(c.fetched_bytes, 0u);
  EXPECT_EQ(c.fetch_milliseconds_sum, 0u);
  EXPECT_EQ(c.fetch_seconds_buckets[0], 2u);
}

TEST(ImageCacheMetrics, CountersSaturateInsteadOfWrapping) {
  ImageCacheCounters c;
  c.fetched_bytes = std::numeric_limits<uint64_t>::max() - 1;
  record(c, {Outcome::Fetched, 1, 100});
  EXPECT_EQ(c.fetched_bytes, std::numeric_limits<uint64_t>::max());
}

TEST(ImageCacheMetricsState, RoundTrips) {
  ImageCacheCounters c;
  record(c, {Outcome::Fetched, 0.7, 123456789});
  record(c, {Outcome::Fetched, 70, 1});
  record(c, {Outcome::Failed, 0, 0});
  record(c, {Outcome::Hit, 0, 0});
  Result<ImageCacheCounters> back = parse_counters(format_counters(c));
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), c);
  ASSERT_TRUE(parse_counters(format_counters({})));
}

TEST(ImageCacheMetricsState, RefusesWhatItDidNotWrite) {
  const std::string good = format_counters({});
  struct Case {
    std::string name, text, words;
  };
  for (const Case& bad : std::vector<Case>{
           {"empty", "", "first line"},
           {"other header", "# something else\n", "first line"},
           {"unknown key", good + "colour 3\n", "unknown key \"colour\""},
           {"repeated key", good + "hits 3\n", "hits is repeated"},
           {"not a number", good.substr(0, good.find("hits")) + "hits x\n", "hits: \"x\""},
           {"negative", good.substr(0, good.find("hits")) + "hits -1\n", "hits: \"-1\""},
           {"missing key", good.substr(0, good.find("fetch_seconds_bucket_10")), "missing"},
       }) {
    Result<ImageCacheCounters> parsed = parse_counters(bad.text);
    ASSERT_FALSE(parsed) << bad.name;
    EXPECT_EQ(parsed.error().field, "image cache metrics state") << bad.name;
    EXPECT_TRUE(Contains(parsed.error().message, bad.words))
        << bad.name << ": " << parsed.error().message;
  }
}

TEST(ImageCacheMetricsState, RefusesBucketsThatCannotBe) {
  ImageCacheCounters c;
  c.fetch_successes = 1;
  c.fetch_seconds_buckets.fill(1);
  c.fetch_seconds_buckets[3] = 0;  // decreasing
  EXPECT_FALSE(parse_counters(format_counters(c)));
  c.fetch_seconds_buckets.fill(2);  // more than the successes
  EXPECT_FALSE(parse_counters(format_counters(c)));
}

TEST(ImageCacheMetricsText, HasEveryMetricWithHelpTypeAndValue) {
  ImageCacheCounters c;
  record(c, {Outcome::Fetched, 1.5, 4096});
  record(c, {Outcome::Failed, 0, 0});
  record(c, {Outcome::Hit, 0, 0});
  record(c, {Outcome::Hit, 0, 0});
  const std::string text = render_image_cache_metrics(c, {4096, 1 << 20, 1, 1});
  for (const char* line : {
           "# TYPE shareq_image_cache_bytes gauge\n",
           "shareq_image_cache_bytes 4096\n",
           "shareq_image_cache_limit_bytes 1048576\n",
           "shareq_image_cache_images 1\n",
           "shareq_image_cache_pinned_images 1\n",
           "# TYPE shareq_image_cache_fetches_total counter\n",
           "shareq_image_cache_fetches_total{result=\"success\"} 1\n",
           "shareq_image_cache_fetches_total{result=\"failure\"} 1\n",
           "shareq_image_cache_hits_total 2\n",
           "shareq_image_cache_fetched_bytes_total 4096\n",
           "# TYPE shareq_image_cache_fetch_seconds histogram\n",
           "shareq_image_cache_fetch_seconds_bucket{le=\"1\"} 0\n",
           "shareq_image_cache_fetch_seconds_bucket{le=\"2.5\"} 1\n",
           "shareq_image_cache_fetch_seconds_bucket{le=\"1800\"} 1\n",
           "shareq_image_cache_fetch_seconds_bucket{le=\"+Inf\"} 1\n",
           "shareq_image_cache_fetch_seconds_sum 1.500\n",
           "shareq_image_cache_fetch_seconds_count 1\n",
       }) {
    EXPECT_TRUE(Contains(text, line)) << "missing " << line << "in\n" << text;
  }
  EXPECT_EQ(text.back(), '\n');
}

TEST(ImageCacheMetricsText, EveryFamilyHasHelpThenType) {
  const std::string text = render_image_cache_metrics({}, {});
  size_t help = 0;
  size_t type = 0;
  for (size_t at = text.find("# HELP "); at != std::string::npos;
       at = text.find("# HELP ", at + 1)) {
    ++help;
  }
  for (size_t at = text.find("# TYPE "); at != std::string::npos;
       at = text.find("# TYPE ", at + 1)) {
    ++type;
  }
  EXPECT_EQ(help, 8u);
  EXPECT_EQ(type, 8u);
}

}  // namespace
}  // namespace shareq::metrics
