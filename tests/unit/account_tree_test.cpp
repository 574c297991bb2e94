// account_tree_notes: shares nested in the account tree, and shares that are no account.
#include <gtest/gtest.h>

#include "account_tree.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

const Config& cluster() {
  static const Config config = testing::must_parse(testing::kClusterConf);
  return config;
}

TEST(AccountTreeNotes, NothingWhenEveryShareIsAnAccountAndNoneIsBelowAnother) {
  const std::vector<AccountParent> tree = {{"prodexp1", ""},
                                           {"prodexp2", ""},
                                           {"research", "science"},
                                           {"science", ""},
                                           {"prodexp1-ranking", "prodexp1"}};
  EXPECT_TRUE(account_tree_notes(cluster(), tree).empty());
}

TEST(AccountTreeNotes, AShareBelowAnotherSharesAccountIsItsOwn) {
  const std::vector<AccountParent> tree = {
      {"ProdExp1", ""}, {"team", "prodexp1"}, {"ProdExp2", "team"}, {"research", ""}};
  EXPECT_EQ(account_tree_notes(cluster(), tree),
            std::vector<std::string>{
                "share prodexp2 is below share prodexp1's account (prodexp2 -> team -> "
                "prodexp1): it is its own share, and prodexp1's quota does not cover its jobs "
                "(the nearest listed account wins)"});
}

TEST(AccountTreeNotes, AShareThatIsNoAccountIsNamedAndACycleEndsTheWalk) {
  const std::vector<AccountParent> tree = {{"prodexp1", "x"}, {"x", "prodexp1"}, {"prodexp2", ""}};
  EXPECT_EQ(account_tree_notes(cluster(), tree),
            std::vector<std::string>{"share research is no account in Slurm's association tree: "
                                     "no job runs under it until `sacctmgr add account research`"});
}

}  // namespace
}  // namespace shareq
