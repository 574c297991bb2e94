// advise_placement: what the select hook does with warm nodes in prefer and reserve mode.
#include <gtest/gtest.h>

#include "warm/placement.hpp"
#include "warm_builders.hpp"

namespace shareq::warm::testing {
namespace {

using Nodes = std::vector<std::string>;

// alice's pool wp-1 on n1,n2; bob's pool wp-2 on n3,n4; n5,n6 cold.
WarmPoolRegistry TwoPools(WarmPoolMode mode) {
  WarmPoolRegistry registry(Settings(mode));
  MakePool(registry, Ended(1).nodes({"n1", "n2"}), 100);
  MakePool(registry, Ended(2).user("bob").nodes({"n3", "n4"}), 100);
  return registry;
}

const Nodes kAll = {"n1", "n2", "n3", "n4", "n5", "n6"};

struct AdviceCase {
  const char* name;
  WarmPoolMode mode;
  Pending job;
  Nodes candidates;
  Time now;
  NodeAdvice expected;
};

TEST(Placement, PreferAndReserve) {
  const std::vector<AdviceCase> cases = {
      {"prefer: a matching job goes to its pool, avoids the other", WarmPoolMode::Prefer,
       Pending(9), kAll, 200, NodeAdvice{1, {"n1", "n2"}, {"n3", "n4"}, {}}},
      {"prefer: a non-matching job avoids all warm nodes", WarmPoolMode::Prefer,
       Pending(9).user("carol"), kAll, 200,
       NodeAdvice{std::nullopt, {}, {"n1", "n2", "n3", "n4"}, {}}},
      {"reserve: a matching job goes to its pool, the other is forbidden", WarmPoolMode::Reserve,
       Pending(9), kAll, 200, NodeAdvice{1, {"n1", "n2"}, {}, {"n3", "n4"}}},
      {"reserve: a non-matching job may not touch warm nodes", WarmPoolMode::Reserve,
       Pending(9).user("carol"), kAll, 200,
       NodeAdvice{std::nullopt, {}, {}, {"n1", "n2", "n3", "n4"}}},
      {"only candidates are listed", WarmPoolMode::Reserve, Pending(9).user("carol"),
       Nodes{"n2", "n5"}, 200, NodeAdvice{std::nullopt, {}, {}, {"n2"}}},
      {"a pool with a busy node is not offered", WarmPoolMode::Prefer, Pending(9),
       Nodes{"n2", "n3", "n5"}, 200, NodeAdvice{std::nullopt, {}, {"n2", "n3"}, {}}},
      {"expired pools are cold nodes", WarmPoolMode::Reserve, Pending(9).user("carol"), kAll, 1000,
       NodeAdvice{}},
  };
  for (const AdviceCase& c : cases) {
    SCOPED_TRACE(c.name);
    const WarmPoolRegistry registry = TwoPools(c.mode);
    const auto before = registry.pools();
    EXPECT_EQ(advise_placement(registry, c.job, c.candidates, c.now), c.expected);
    EXPECT_EQ(registry.pools(), before) << "advice leaves the registry untouched";
  }
}

TEST(Placement, AnotherMatchingPoolIsAvoidedNotForbidden) {
  WarmPoolRegistry registry(Settings(WarmPoolMode::Reserve));
  MakePool(registry, Ended(1).nodes({"n1", "n2"}).keep(300), 100);
  MakePool(registry, Ended(2).nodes({"n3", "n4"}).keep(900), 100);
  EXPECT_EQ(advise_placement(registry, Pending(9), kAll, 200),
            (NodeAdvice{1, {"n1", "n2"}, {"n3", "n4"}, {}}));
}

TEST(Placement, PoolInUseGivesNoAdvice) {
  WarmPoolRegistry registry = TwoPools(WarmPoolMode::Reserve);
  ASSERT_TRUE(registry.claim(1, Pending(5), 150));
  EXPECT_EQ(advise_placement(registry, Pending(9), {"n5", "n6"}, 200), NodeAdvice{});
}

}  // namespace
}  // namespace shareq::warm::testing
