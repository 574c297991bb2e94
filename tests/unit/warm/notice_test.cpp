// The warm-pool notice's words: pool, nodes, expiry with offset and seconds, the match key.
#include "warm/notice.hpp"

#include <gtest/gtest.h>

#include "warm_builders.hpp"

namespace shareq::warm {
namespace {

using testing::Ended;
using testing::MakePool;
using testing::Settings;

constexpr Time kEnd = 1'764'612'000;  // 2025-12-01T18:00:00Z

TEST(Notice, IsoTimeCarriesTheOffset) {
  EXPECT_EQ(iso_time_with_offset(kEnd, 0), "2025-12-01T18:00:00+00:00");
  EXPECT_EQ(iso_time_with_offset(kEnd, 3600), "2025-12-01T19:00:00+01:00");
  EXPECT_EQ(iso_time_with_offset(kEnd, -(5 * 3600 + 30 * 60)), "2025-12-01T12:30:00-05:30");
}

TEST(Notice, NamesPoolNodesExpiryAndWhatAMatchingJobShares) {
  WarmPoolRegistry registry(Settings());
  const WarmPool pool = MakePool(registry, Ended(42).nodes({"p4n1", "p4n2"}).keep(900), kEnd);
  EXPECT_EQ(pool_notice(pool, 42, "llama-train", kEnd, 3600),
            "shareq: job 42 left its nodes warm as " + pool.name() +
                ": p4n1,p4n2 (partition p4) until 2025-12-01T19:15:00+01:00 (in 900 s); a job "
                "reuses them when it has the same user alice, share prodexp1, image llama-train "
                "(sha256:aaaaaaaaaaaa), partition p4, node count 2");
}

TEST(Notice, OnlyTheFieldsOfWarmPoolMatchAndNoImage) {
  WarmSettings settings = Settings();
  settings.match = {MatchField::User, MatchField::Image};
  WarmPoolRegistry registry(settings);
  const WarmPool pool = MakePool(registry, Ended(7).image("").keep(60), kEnd);
  const std::string text = pool_notice(pool, 7, "", kEnd + 20, 0);
  EXPECT_NE(text.find("until 2025-12-01T18:01:00+00:00 (in 40 s)"), std::string::npos) << text;
  EXPECT_NE(text.find("the same user alice, no image"), std::string::npos) << text;
  EXPECT_EQ(text.find("share prodexp1"), std::string::npos) << text;
  EXPECT_EQ(text.find("node count"), std::string::npos) << text;
}

}  // namespace
}  // namespace shareq::warm
