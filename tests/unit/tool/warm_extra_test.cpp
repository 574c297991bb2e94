// shareq pools: the nodes' Extra lines that plugins/ctld/warm_pools.cpp writes, grouped by pool.
#include "warm_extra.hpp"

#include <gtest/gtest.h>

#include "table.hpp"

namespace shareq::tool {
namespace {

constexpr const char* kKey =
    "image=sha256:0a1b2c3d4e5f,account=prodexp1,user=alice,partition=p4,nodes=2";
// 2025-01-15 10:15:00 in this process's local time zone, as slurmctld writes it (epoch seconds).
const int64_t kUntil = *parse_local_time("2025-01-15T10:15:00");
const std::string kWaiting =
    "shareq:wp-3,available,owner=alice/prodexp1,until=" + std::to_string(kUntil) + ",key=" + kKey;
// The same pool as an older slurmctld wrote it: its local time, no offset.
const std::string kWaitingOld =
    std::string("shareq:wp-3,available,owner=alice/prodexp1,until=2025-01-15T10:15:00,key=") + kKey;
constexpr const char* kInUse = "shareq:wp-12,in-use,owner=bob/research,job=77,key=any";

TEST(WarmExtra, WaitingPoolWithAKeyFullOfCommas) {
  const auto parsed = parse_warm_extra(kWaiting);
  ASSERT_TRUE(parsed.has_value());
  ASSERT_TRUE(parsed->ok()) << parsed->error().to_string();
  const WarmExtra& pool = parsed->value();
  EXPECT_EQ(pool.pool, "wp-3");
  EXPECT_EQ(pool.status, "available");
  EXPECT_EQ(pool.user, "alice");
  EXPECT_EQ(pool.account, "prodexp1");
  EXPECT_EQ(pool.until, kUntil);
  EXPECT_FALSE(pool.until_local.has_value());
  EXPECT_FALSE(pool.job.has_value());
  EXPECT_EQ(pool.key, kKey);
  EXPECT_EQ(until_epoch(pool), kUntil);
}

TEST(WarmExtra, AnOlderSlurmctldsLocalTimeIsReadInLocalTime) {
  const auto parsed = parse_warm_extra(kWaitingOld);
  ASSERT_TRUE(parsed && parsed->ok()) << parsed->error().to_string();
  EXPECT_FALSE(parsed->value().until.has_value());
  EXPECT_EQ(parsed->value().until_local, (warm::LocalDateTime{2025, 1, 15, 10, 15, 0}));
  EXPECT_EQ(until_epoch(parsed->value()), kUntil);
}

TEST(WarmExtra, PoolInUseNamesItsJob) {
  const auto parsed = parse_warm_extra(kInUse);
  ASSERT_TRUE(parsed && parsed->ok());
  EXPECT_EQ(parsed->value().job, 77u);
  EXPECT_FALSE(parsed->value().until.has_value());
  EXPECT_FALSE(until_epoch(parsed->value()).has_value());
  EXPECT_EQ(parsed->value().key, "any");
}

TEST(WarmExtra, AnAdminsExtraIsNotOurs) {
  EXPECT_FALSE(parse_warm_extra("").has_value());
  EXPECT_FALSE(parse_warm_extra("rack=12").has_value());
}

TEST(WarmExtra, MalformedLinesAreErrorsThatSayWhatIsMissing) {
  for (const auto& [extra, problem] : std::vector<std::pair<std::string, std::string>>{
           {"shareq:", "no pool name wp-N"},
           {"shareq:pool-1,available,owner=a/b,until=x,key=any", "no pool name wp-N"},
           {"shareq:wp-1", "no pool name wp-N"},
           {"shareq:wp-1,available", "no status"},
           {"shareq:wp-1,available,owner=ab,until=x,key=any", "no owner=U/A"},
           {"shareq:wp-1,available,owner=a/b,key=any", "no until= or job="},
           {"shareq:wp-1,in-use,owner=a/b,job=x,key=any", "bad job="},
           {"shareq:wp-1,available,owner=a/b,until=1700000000", "no key="},
           {"shareq:wp-1,available,owner=a/b,until=x,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=-5,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=2025-13-01T00:00:00,key=any", "bad until="},
           {"shareq:wp-1,available,owner=a/b,until=,key=any", "bad until="}}) {
    const auto parsed = parse_warm_extra(extra);
    ASSERT_TRUE(parsed.has_value()) << extra;
    ASSERT_FALSE(parsed->ok()) << extra;
    EXPECT_EQ(parsed->error().field, "Extra");
    EXPECT_NE(parsed->error().message.find(problem), std::string::npos)
        << extra << ": " << parsed->error().message;
  }
}

TEST(WarmPools, NodesGroupedByPoolInPoolOrderAndProblemsKept) {
  const WarmPools pools = collect_pools({{"p4n1", kInUse},
                                         {"p4n2", kWaiting},
                                         {"p4n3", "rack=12"},
                                         {"p4n4", kWaiting},
                                         {"p5n1", "shareq:wp-x"}});
  ASSERT_EQ(pools.pools.size(), 2u);
  EXPECT_EQ(pools.pools[0].pool.pool, "wp-3");  // 3 before 12
  EXPECT_EQ(pools.pools[0].nodes, (std::vector<std::string>{"p4n2", "p4n4"}));
  EXPECT_EQ(pools.pools[1].nodes, (std::vector<std::string>{"p4n1"}));
  ASSERT_EQ(pools.problems.size(), 1u);
  EXPECT_EQ(pools.problems[0].rfind("node p5n1: Extra: \"shareq:wp-x\"", 0), 0u)
      << pools.problems[0];
}

TEST(WarmPools, APoolIsFoundByNameAndAnEndRequestIsNoPool) {
  const WarmPools pools =
      collect_pools({{"p4n1", kInUse}, {"p4n2", kWaiting}, {"p4n3", std::string(kEndPoolRequest)}});
  EXPECT_TRUE(pools.problems.empty()) << pools.problems.front();
  ASSERT_NE(find_pool(pools, "wp-3"), nullptr);
  EXPECT_EQ(find_pool(pools, "wp-3")->nodes, std::vector<std::string>{"p4n2"});
  EXPECT_EQ(find_pool(pools, "wp-4"), nullptr);
  EXPECT_EQ(find_pool(pools, "3"), nullptr);
  EXPECT_EQ(pool_names(pools), "wp-3, wp-12");
  EXPECT_EQ(pool_names(WarmPools{}), "");
}

TEST(WarmPools, TableShowsLocalTimeAndWhatRemains) {
  for (const std::string& waiting : {kWaiting, kWaitingOld}) {
    const WarmPools pools = collect_pools({{"p4n1", kInUse}, {"p4n2", waiting}});
    const int64_t now = *parse_local_time("2025-01-15T10:00:30");
    const std::string table = format_pools(pools, now);
    EXPECT_NE(table.find("POOL   STATUS     OWNER           NODES  UNTIL                REMAINING  "
                         "JOB  KEY\n"),
              std::string::npos)
        << table;
    EXPECT_NE(
        table.find("wp-3   available  alice/prodexp1  p4n2   2025-01-15 10:15:00  14m 30s      "
                   "-  image=sha256:0a1b2c3d4e5f,"),
        std::string::npos)
        << table;
    EXPECT_NE(
        table.find("wp-12  in-use     bob/research    p4n1   -                    -           "
                   "77  any\n"),
        std::string::npos)
        << table;
    EXPECT_NE(format_pools(pools, now + 3600).find("expired"), std::string::npos);
    EXPECT_EQ(format_pools({}, now), "no warm pools\n");
  }
}

TEST(WarmPools, Json) {
  // An older slurmctld's node and a newer one's of the same pool, during an upgrade.
  const WarmPools pools = collect_pools({{"p4n2", kWaiting}, {"p4n3", kWaitingOld}});
  const int64_t now = *parse_local_time("2025-01-15T10:00:00");
  const std::string json = format_pools_json(pools, now);
  EXPECT_NE(json.find("\"pool\":\"wp-3\",\"status\":\"available\",\"user\":\"alice\","
                      "\"account\":\"prodexp1\",\"nodes\":[\"p4n2\",\"p4n3\"],\"until\":" +
                      std::to_string(now + 900) + ",\"remaining_s\":900,\"job\":null"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"problems\":[]"), std::string::npos);
  // The older form alone gives the same deadline.
  EXPECT_NE(format_pools_json(collect_pools({{"p4n3", kWaitingOld}}), now)
                .find("\"until\":" + std::to_string(now + 900) + ",\"remaining_s\":900,"),
            std::string::npos);
}

}  // namespace
}  // namespace shareq::tool
