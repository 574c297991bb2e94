// Match keys: each WarmPoolMatch field on its own, the default (all fields), hashing, display.
#include <gtest/gtest.h>

#include <unordered_set>

#include "warm/key.hpp"
#include "warm/pool.hpp"
#include "warm/registry.hpp"
#include "warm_builders.hpp"

namespace shareq::warm::testing {
namespace {

const std::vector<MatchField> kAll = {MatchField::Image, MatchField::Account, MatchField::User,
                                      MatchField::Partition, MatchField::Nodes};

struct FieldCase {
  const char* name;
  MatchField field;
  Pending differing;  // differs from the pool's job only in `field`
};

std::vector<FieldCase> FieldCases() {
  return {
      {"another image", MatchField::Image, Pending(2).image(kImageB)},
      {"no image against an image", MatchField::Image, Pending(2).image("")},
      {"another account", MatchField::Account, Pending(2).account("prodexp2")},
      {"another user", MatchField::User, Pending(2).user("bob")},
      {"another partition", MatchField::Partition, Pending(2).partitions({"p5"})},
      {"another node count", MatchField::Nodes, Pending(2).node_count(3)},
  };
}

WarmPool PoolWith(std::vector<MatchField> match) {
  WarmSettings settings = Settings();
  settings.match = std::move(match);
  WarmPoolRegistry registry(settings);
  return MakePool(registry, Ended(1), 100);
}

TEST(MatchKey, EachFieldSeparatesJobsOnlyWhenMatchedOn) {
  for (const FieldCase& c : FieldCases()) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(matches(PoolWith(kAll), c.differing)) << "all fields: must not match";
    EXPECT_FALSE(matches(PoolWith({c.field}), c.differing)) << "only this field: must not match";
    std::vector<MatchField> others;
    for (MatchField f : kAll) {
      if (f != c.field) others.push_back(f);
    }
    EXPECT_TRUE(matches(PoolWith(others), c.differing)) << "field left out: must match";
  }
}

TEST(MatchKey, SameFactsMatchAndNoFieldsMatchAnything) {
  EXPECT_TRUE(matches(PoolWith(kAll), Pending(2)));
  EXPECT_TRUE(matches(PoolWith({}), Pending(2).user("bob").image(kImageB).node_count(9)));
}

TEST(MatchKey, PendingJobMatchesThroughAnyOfItsPartitions) {
  EXPECT_TRUE(matches(PoolWith(kAll), Pending(2).partitions({"p5", "p4"})));
  EXPECT_FALSE(matches(PoolWith(kAll), Pending(2).partitions({})));
}

TEST(MatchKey, EqualKeysHashEqual) {
  const WarmPoolKey a = make_key(kAll, EndedJob(Ended(1)));
  const WarmPoolKey b = make_key(kAll, JobToStart(Pending(2)), "p4");
  EXPECT_EQ(a, b);
  EXPECT_EQ(WarmPoolKeyHash{}(a), WarmPoolKeyHash{}(b));
  std::unordered_set<WarmPoolKey, WarmPoolKeyHash> keys = {
      a, b, make_key(kAll, EndedJob(Ended(3).user("bob")))};
  EXPECT_EQ(keys.size(), 2u);
}

TEST(MatchKey, ReadableForm) {
  EXPECT_EQ(make_key(kAll, EndedJob(Ended(1))).to_string(),
            "image=sha256:aaaaaaaaaaaa,account=prodexp1,user=alice,partition=p4,nodes=2");
  EXPECT_EQ(make_key({MatchField::Image}, EndedJob(Ended(1).image(""))).to_string(), "image=none");
  EXPECT_EQ(make_key({}, EndedJob(Ended(1))).to_string(), "any");
  EXPECT_EQ(match_fields_string(kAll), "image,account,user,partition,nodes");
}

TEST(MatchKey, SettingsFromConfig) {
  Config config;
  config.warm_pool_mode = WarmPoolMode::Reserve;
  config.warm_pool_match = {MatchField::User};
  config.max_keep_alive_s = 60;
  config.max_warm_pool_lifetime_s = 600;
  const WarmSettings settings = WarmSettings::from_config(config, "/warm");
  EXPECT_EQ(settings.mode, WarmPoolMode::Reserve);
  EXPECT_EQ(settings.match, std::vector<MatchField>{MatchField::User});
  EXPECT_EQ(settings.max_keep_alive_s, 60);
  EXPECT_EQ(settings.max_lifetime_s, 600);
  EXPECT_EQ(settings.warm_dir_root, "/warm");
}

}  // namespace
}  // namespace shareq::warm::testing
