// Ledger: usage, borrowed and lendable figures, kept up to date by add and remove.
#include <gtest/gtest.h>

#include "policy_builders.hpp"

namespace shareq::policy::testing {
namespace {

// p4: 10 nodes; a quota 4 lending at most 1, b quota 4, 2 nodes nobody owns.
Cluster Lenders() {
  return Cluster()
      .family("p4", Unit::Node, 10)
      .share("a", "p4", 4)
      .lend_limit(Amount(1))
      .share("b", "p4", 4);
}

struct LedgerCase {
  std::string name;
  std::vector<Running> running;
  int64_t used, idle, borrowed_a, borrowed_b, borrowed_total, lendable;
};

void PrintTo(const LedgerCase& c, std::ostream* os) { *os << c.name; }

class LedgerFigures : public ::testing::TestWithParam<LedgerCase> {};

TEST_P(LedgerFigures, Match) {
  const LedgerCase& c = GetParam();
  const World world(Lenders(), c.running);
  const Ledger ledger = world.ledger();
  const FamilyId p4 = world.family("p4");
  EXPECT_EQ(ledger.used(p4), c.used);
  EXPECT_EQ(ledger.idle(p4), c.idle);
  EXPECT_EQ(ledger.borrowed(world.share("a"), p4), c.borrowed_a);
  EXPECT_EQ(ledger.borrowed(world.share("b"), p4), c.borrowed_b);
  EXPECT_EQ(ledger.borrowed_total(p4), c.borrowed_total);
  EXPECT_EQ(ledger.lendable(p4), c.lendable);
}

INSTANTIATE_TEST_SUITE_P(
    Ledger, LedgerFigures,
    ::testing::Values(
        LedgerCase{"empty_family_lends_unassigned_plus_limited_quotas", {}, 0, 10, 0, 0, 0, 7},
        LedgerCase{"lend_limit_caps_what_an_idle_share_lends",
                   {Running(1).share("b").amount(4)},
                   4,
                   6,
                   0,
                   0,
                   0,
                   3},
        LedgerCase{"borrower_lends_nothing_of_its_own",
                   {Running(1).share("b").amount(6)},
                   6,
                   4,
                   0,
                   2,
                   2,
                   3},
        LedgerCase{"lender_using_part_lends_the_rest_up_to_its_limit",
                   {Running(1).share("a").amount(3), Running(2).share("b").amount(7)},
                   10,
                   0,
                   0,
                   3,
                   3,
                   3},
        LedgerCase{"jobs_of_unknown_shares_are_ignored",
                   {Running(1).share("nobody").amount(3)},
                   0,
                   10,
                   0,
                   0,
                   0,
                   7}),
    [](const auto& info) { return info.param.name; });

TEST(Ledger, AddAndRemoveKeepTotalsInStep) {
  const World world(Lenders(), {});
  Ledger ledger = world.ledger();
  const RunningJob job{1, world.share("b"), world.family("p4"), 6, 50, 0};
  ledger.add(job);
  EXPECT_EQ(ledger.usage(world.share("b"), world.family("p4")), 6);
  EXPECT_EQ(ledger.borrowed_total(world.family("p4")), 2);
  ledger.remove(job);
  EXPECT_EQ(ledger.used(world.family("p4")), 0);
  EXPECT_EQ(ledger.borrowed_total(world.family("p4")), 0);
  EXPECT_EQ(ledger.lendable(world.family("p4")), 7);
  ledger.remove(job);  // never added twice: figures stay at 0
  EXPECT_EQ(ledger.used(world.family("p4")), 0);
}

TEST(Ledger, OutOfRangeIdsReadAsZero) {
  const World world(Lenders(), {});
  const Ledger ledger = world.ledger();
  EXPECT_EQ(ledger.usage(99, 0), 0);
  EXPECT_EQ(ledger.used(99), 0);
  EXPECT_EQ(ledger.lendable(99), 0);
  EXPECT_EQ(ledger.capacity(99), 0);
}

TEST(Ledger, SaturatesInsteadOfOverflowing) {
  const World world(Lenders(), {});
  Ledger ledger = world.ledger();
  ledger.add({1, world.share("b"), 0, kUnlimited - 1, 50, 0});
  ledger.add({2, world.share("b"), 0, kUnlimited - 1, 50, 0});
  EXPECT_EQ(ledger.usage(world.share("b"), 0), kUnlimited);
  EXPECT_EQ(ledger.idle(0), 0);
}

}  // namespace
}  // namespace shareq::policy::testing
