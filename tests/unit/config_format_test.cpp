#include <gtest/gtest.h>

#include <string>

#include "config.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

using testing::kClusterConf;
using testing::must_parse;

// format_config's output parses back to an equivalent Config and formats identically.
void expect_round_trip(const Config& config) {
  const std::string text = format_config(config);
  const ParseResult again = parse_config(text, "formatted");
  ASSERT_TRUE(again.config.has_value())
      << text << (again.errors.empty() ? "" : again.errors[0].to_string());
  EXPECT_TRUE(equivalent(config, *again.config)) << text;
  EXPECT_EQ(format_config(*again.config), format_config(config));
}

TEST(FormatConfig, ClusterConfigurationRoundTrips) { expect_round_trip(must_parse(kClusterConf)); }

TEST(FormatConfig, DefaultsRoundTrip) { expect_round_trip(Config{}); }

TEST(FormatConfig, EverySettingChangedRoundTrips) {
  expect_round_trip(
      must_parse(std::string(kClusterConf) +
                 "InSharePreemption=no\nReclaimMinRuntime=7\nReclaimAfter=8\nBorrowOrder=largest\n"
                 "PreemptGraceTime=90\n"
                 "MaxKeepAlive=61\nMaxWarmPoolLifetime=0\nWarmPoolMode=reserve\n"
                 "WarmPoolMatch=nodes,image\nImageStore=http://store:8080/img\n"
                 "ImageCacheDir=/tmp/c\nImageCacheSize=1025\nImageFetchTimeout=61\n"
                 "ImageCacheMetricsFile=/var/lib/prometheus/node-exporter/shareq.prom\n"));
}

TEST(FormatConfig, SeveralPartitionsAndLimits) {
  expect_round_trip(
      must_parse("Family=big Partitions=a,b,c Capacity=gres/gpu=64\n"
                 "Share=X Family=big Quota=gres/gpu=10 BorrowLimit=0% LendLimit=gres/gpu=0\n"
                 "Share=y Family=big Quota=gres/gpu=0 BorrowLimit=100% LendLimit=unlimited\n"));
}

TEST(FormatConfig, BorrowWeightsRoundTrip) {
  const Config config = must_parse(
      "Family=big Partitions=a Capacity=gres/gpu=64\n"
      "Share=x Family=big Quota=gres/gpu=10 BorrowWeight=4\n"
      "Share=y Family=big Quota=gres/gpu=10 BorrowWeight=0.25\n"
      "Share=z Family=big Quota=gres/gpu=10 BorrowWeight=0.001\n"
      "Share=w Family=big Quota=gres/gpu=10 BorrowWeight=1000.000\n");
  expect_round_trip(config);
  const std::string text = format_config(config);
  for (const char* weight :
       {"BorrowWeight=4\n", "BorrowWeight=0.25\n", "BorrowWeight=0.001\n", "BorrowWeight=1000\n"}) {
    EXPECT_NE(text.find(weight), std::string::npos) << "missing " << weight << "in\n" << text;
  }
}

TEST(FormatConfig, PrintsEverySettingExplicitly) {
  const std::string text = format_config(must_parse(kClusterConf));
  for (const char* line :
       {"Family=p4 Partitions=p4 Capacity=node=4\n",
        "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n",
        "Share=ProdExp2 Family=p4 Quota=node=2 BorrowLimit=node=2 LendLimit=50% BorrowWeight=1\n",
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one line, split for width
        "Share=ProdExp1 Family=p4 Quota=node=2 BorrowLimit=UNLIMITED LendLimit=UNLIMITED "
        "BorrowWeight=1\n",
        "DefaultPriority=50\n", "InSharePreemption=yes\n", "ReclaimMinRuntime=600\n",
        "ReclaimAfter=60\n", "BorrowOrder=fairshare\n", "PreemptGraceTime=0\n", "MaxKeepAlive=1h\n",
        "MaxWarmPoolLifetime=28d\n", "WarmPoolMode=prefer\n",
        "WarmPoolMatch=image,account,user,partition,nodes\n", "# ImageStore is not set\n",
        "ImageCacheDir=/var/cache/shareq/images\n", "ImageCacheSize=200G\n",
        "ImageFetchTimeout=30m\n", "# ImageCacheMetricsFile is not set\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing " << line << "in\n" << text;
  }
}

TEST(FormatConfig, NoFamilyIsSaid) {
  EXPECT_NE(format_config(Config{}).find("# No Family"), std::string::npos);
}

}  // namespace
}  // namespace shareq
