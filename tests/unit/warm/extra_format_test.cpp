// A warm node's Extra field: the one writer (slurmctld's) and the one parser (shareq pools'),
// with the deadline in epoch seconds, and the older local-time form still read.
#include "warm/extra_format.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "warm_builders.hpp"

namespace shareq::warm::testing {
namespace {

constexpr Time kNow = 1'764'612'000;

NodeExtra Waiting() {
  NodeExtra e;
  e.pool = "wp-3";
  e.status = "available";
  e.user = "alice";
  e.account = "prodexp1";
  e.until = 1'764'612'345;
  e.key = "image=sha256:0a1b2c3d4e5f,account=prodexp1,user=alice,partition=p4,nodes=2";
  return e;
}

TEST(ExtraFormat, AWaitingPoolCarriesItsDeadlineInEpochSeconds) {
  WarmPoolRegistry registry(Settings());
  const WarmPool pool = MakePool(registry, Ended(17).nodes({"n1", "n2"}).keep(345), kNow);
  EXPECT_EQ(node_extra(pool), "shareq:wp-1,available,owner=alice/prodexp1,until=1764612345,key=" +
                                  pool.key.to_string());
  const auto back = parse_node_extra(node_extra(pool));
  ASSERT_TRUE(back && back->ok()) << back->error().to_string();
  EXPECT_EQ(back->value(), node_extra_of(pool));
  EXPECT_EQ(back->value().until, pool.expires_at);
  EXPECT_FALSE(back->value().until_local.has_value());
  EXPECT_FALSE(back->value().job.has_value());
}

TEST(ExtraFormat, APoolInUseNamesItsJob) {
  WarmPoolRegistry registry(Settings());
  MakePool(registry, Ended(17).nodes({"n1", "n2"}), kNow);
  const auto claimed = registry.claim(1, Pending(18), kNow + 10);
  ASSERT_TRUE(claimed);
  const std::string text = node_extra(claimed.value());
  EXPECT_EQ(text, "shareq:wp-1,in-use,owner=alice/prodexp1,job=18,key=" +
                      claimed.value().key.to_string());
  const auto back = parse_node_extra(text);
  ASSERT_TRUE(back && back->ok());
  EXPECT_EQ(back->value().job, 18u);
  EXPECT_FALSE(back->value().until.has_value());
  EXPECT_EQ(format_node_extra(back->value()), text);
}

TEST(ExtraFormat, TheKeyIsTheRestOfTheLineCommasIncluded) {
  const std::string text = format_node_extra(Waiting());
  EXPECT_EQ(text,
            "shareq:wp-3,available,owner=alice/prodexp1,until=1764612345,"
            "key=image=sha256:0a1b2c3d4e5f,account=prodexp1,user=alice,partition=p4,nodes=2");
  const auto back = parse_node_extra(text);
  ASSERT_TRUE(back && back->ok());
  EXPECT_EQ(back->value(), Waiting());
}

TEST(ExtraFormat, TheOlderLocalTimeFormIsReadAsItsWallClockFields) {
  const auto back =
      parse_node_extra("shareq:wp-3,reused,owner=alice/prodexp1,until=2025-01-15T10:15:00,key=any");
  ASSERT_TRUE(back && back->ok()) << back->error().to_string();
  EXPECT_FALSE(back->value().until.has_value());
  EXPECT_EQ(back->value().until_local, (LocalDateTime{2025, 1, 15, 10, 15, 0}));
  EXPECT_EQ(back->value().status, "reused");
  // Written back as it was (only a parsed old line has until_local; slurmctld never writes it).
  EXPECT_EQ(format_node_extra(back->value()),
            "shareq:wp-3,reused,owner=alice/prodexp1,until=2025-01-15T10:15:00,key=any");
  EXPECT_EQ(format_local_date_time({2025, 1, 5, 0, 0, 9}), "2025-01-05T00:00:09");
}

TEST(ExtraFormat, AnAdminsExtraAndAnEndRequestAreNoPool) {
  EXPECT_FALSE(parse_node_extra("").has_value());
  EXPECT_FALSE(parse_node_extra("rack=12").has_value());
  EXPECT_FALSE(parse_node_extra("Shareq:wp-1").has_value());
  EXPECT_FALSE(parse_node_extra(kEndPoolRequest).has_value());
  EXPECT_TRUE(is_shareq_extra(kEndPoolRequest));
  EXPECT_TRUE(is_shareq_extra("shareq:wp-1,available"));
  EXPECT_FALSE(is_shareq_extra("rack=12"));
  EXPECT_FALSE(is_shareq_extra("shareq"));
}

TEST(ExtraFormat, MalformedLinesAreErrorsThatSayWhatIsMissing) {
  for (const auto& [extra, problem] : std::vector<std::pair<std::string, std::string>>{
           {"shareq:", "no pool name wp-N"},
           {"shareq:pool-1,available,owner=a/b,until=5,key=any", "no pool name wp-N"},
           {"shareq:wp-,available,owner=a/b,until=5,key=any", "no pool name wp-N"},
           {"shareq:wp--1,available,owner=a/b,until=5,key=any", "no pool name wp-N"},
           {"shareq:wp-1", "no pool name wp-N"},
           {"shareq:wp-1,available", "no status"},
           {"shareq:wp-1,,owner=a/b,until=5,key=any", "no status"},
           {"shareq:wp-1,available,owner=ab,until=5,key=any", "no owner=U/A"},
           {"shareq:wp-1,available,until=5,key=any", "no owner=U/A"},
           {"shareq:wp-1,available,owner=a/b,key=any", "no until= or job="},
           {"shareq:wp-1,in-use,owner=a/b,job=x,key=any", "bad job="},
           {"shareq:wp-1,in-use,owner=a/b,job=4294967296,key=any", "bad job="},
           {"shareq:wp-1,available,owner=a/b,until=5", "no key="},
           {"shareq:wp-1,available,owner=a/b,until=5,kee=any", "no key="},
           {"shareq:wp-1,available,owner=a/b,until=,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=-5,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=+5,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=9223372036854775808,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-01-15 10:15:00,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-01-15T10:15,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-00-15T10:15:00,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-01-32T10:15:00,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-01-15T24:00:00,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-01-15T10:15:00Z,key=any", "bad until="},
       }) {
    const auto parsed = parse_node_extra(extra);
    ASSERT_TRUE(parsed.has_value()) << extra;
    ASSERT_FALSE(parsed->ok()) << extra;
    EXPECT_EQ(parsed->error().field, "Extra");
    EXPECT_NE(parsed->error().message.find(problem), std::string::npos)
        << extra << ": " << parsed->error().message;
    EXPECT_NE(parsed->error().message.find("until=EPOCH|job=ID"), std::string::npos);
  }
}

TEST(ExtraFormat, EdgesThatAreAccepted) {
  const auto big = parse_node_extra(
      "shareq:wp-18446744073709551615,available,owner=/,until=9223372036854775807,key=");
  ASSERT_TRUE(big && big->ok()) << big->error().to_string();
  EXPECT_EQ(big->value().until, INT64_MAX);
  EXPECT_EQ(big->value().user, "");
  EXPECT_EQ(big->value().account, "");
  EXPECT_EQ(big->value().key, "");
  const auto slash = parse_node_extra("shareq:wp-2,in-use,owner=a/b/c,job=0,key=x,y=z");
  ASSERT_TRUE(slash && slash->ok());
  EXPECT_EQ(slash->value().user, "a");
  EXPECT_EQ(slash->value().account, "b/c");
  EXPECT_EQ(slash->value().job, 0u);
  EXPECT_EQ(slash->value().key, "x,y=z");
}

TEST(ExtraFormat, PoolNumbers) {
  EXPECT_EQ(pool_number("wp-3"), 3u);
  EXPECT_EQ(pool_number("wp-0"), 0u);
  EXPECT_EQ(pool_number("wp-18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(pool_number("wp-18446744073709551616").has_value());
  EXPECT_FALSE(pool_number("wp-").has_value());
  EXPECT_FALSE(pool_number("wp-x").has_value());
  EXPECT_FALSE(pool_number("3").has_value());
  EXPECT_FALSE(pool_number("WP-3").has_value());
}

}  // namespace
}  // namespace shareq::warm::testing
