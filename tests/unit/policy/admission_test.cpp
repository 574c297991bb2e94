// admit and describe: who may start without preempting, and the words for why not.
#include <gtest/gtest.h>

#include "policy/describe.hpp"
#include "policy_builders.hpp"
#include "policy_invariants.hpp"

namespace shareq::policy::testing {
namespace {

// p4: 4 nodes, split evenly; prodexp2 may borrow at most 1 and lend at most half its quota.
Cluster P4() {
  return Cluster()
      .family("p4", Unit::Node, 4)
      .share("prodexp1", "p4", 2)
      .share("prodexp2", "p4", 2)
      .borrow_limit(Amount(1))
      .lend_limit(Percent(50));
}

// p4: 4 nodes split evenly, no limits.
Cluster Even() {
  return Cluster().family("p4", Unit::Node, 4).share("a", "p4", 2).share("b", "p4", 2);
}

// p4: 6 nodes, quotas 2 + 2, 2 nodes nobody owns; neither share lends.
Cluster Unassigned() {
  return Cluster()
      .family("p4", Unit::Node, 6)
      .share("a", "p4", 2)
      .lend_limit(Amount(0))
      .share("b", "p4", 2)
      .lend_limit(Amount(0))
      .share("c", "p5", 0)
      .family("p5", Unit::Gpu, 8);
}

struct AdmitCase {
  std::string name;
  Cluster cluster;
  std::vector<Running> running;
  std::string share;
  std::string family;
  int64_t amount;
  bool can_start;
  bool within_quota;
  WaitReason reason;
  std::string words;  // describe(); "" to skip
};

void PrintTo(const AdmitCase& c, std::ostream* os) { *os << c.name; }

class Admit : public ::testing::TestWithParam<AdmitCase> {};

TEST_P(Admit, Decides) {
  const AdmitCase& c = GetParam();
  const World world(c.cluster, c.running);
  const Ledger ledger = world.ledger();
  const auto before = world.running;
  const PendingJob job =
      Pending(100).share(c.share).request(c.family, c.amount).resolve(world.policy);
  const FamilyId family = world.family(c.family);
  const Admission admission = admit(ledger, job.share, family, c.amount);
  EXPECT_EQ(admission.can_start, c.can_start);
  EXPECT_EQ(admission.within_quota, c.within_quota);
  EXPECT_EQ(admission.reason, c.reason);
  if (!c.words.empty()) {
    EXPECT_EQ(describe(admission.reason, ledger, job.share, family, c.amount), c.words);
  }
  EXPECT_LE(describe(admission.reason, ledger, job.share, family, c.amount).size(), 100u);
  expect_valid_admission(world, job, family, c.amount, admission);
  EXPECT_EQ(world.running, before);
}

INSTANTIATE_TEST_SUITE_P(
    Admission, Admit,
    ::testing::Values(
        AdmitCase{"within_quota_on_idle_capacity_starts",
                  P4(),
                  {},
                  "prodexp1",
                  "p4",
                  2,
                  true,
                  true,
                  WaitReason::None,
                  ""},
        AdmitCase{"within_quota_in_a_full_family_waits_to_reclaim",
                  P4(),
                  {Running(1).share("prodexp1").amount(3)},
                  "prodexp2",
                  "p4",
                  2,
                  false,
                  true,
                  WaitReason::FamilyAtCapacity,
                  "shareq: family p4 at capacity (3/4 node); waiting to reclaim borrowed capacity"},
        AdmitCase{"borrower_takes_idle_quota_of_another_share",
                  P4(),
                  {Running(1).share("prodexp2").amount(1)},
                  "prodexp1",
                  "p4",
                  3,
                  true,
                  false,
                  WaitReason::None,
                  ""},
        AdmitCase{"borrowing_is_work_conserving_up_to_capacity",
                  Even(),
                  {Running(1).share("a").amount(3)},
                  "a",
                  "p4",
                  1,
                  true,
                  false,
                  WaitReason::None,
                  ""},
        AdmitCase{"borrower_stops_at_capacity",
                  Even(),
                  {Running(1).share("a").amount(4)},
                  "a",
                  "p4",
                  1,
                  false,
                  false,
                  WaitReason::NothingToBorrow,
                  "shareq: family p4 at capacity (4/4 node); nothing idle to borrow"},
        AdmitCase{"borrow_limit_stops_a_borrower_with_idle_capacity_left",
                  P4(),
                  {Running(1).share("prodexp2").amount(3)},
                  "prodexp2",
                  "p4",
                  1,
                  false,
                  false,
                  WaitReason::ShareAtBorrowLimit,
                  "shareq: share prodexp2 at its borrow limit in p4 (borrowing 1/1 node)"},
        AdmitCase{
            "borrow_limit_counts_the_new_job",
            P4(),
            {},
            "prodexp2",
            "p4",
            4,
            false,
            false,
            WaitReason::ShareAtBorrowLimit,
            "shareq: share prodexp2 at its borrow limit in p4 (borrowing 0/1 node, job needs 2)"},
        AdmitCase{"lend_limit_keeps_part_of_an_idle_quota",
                  P4(),
                  {Running(1).share("prodexp1").amount(3)},
                  "prodexp1",
                  "p4",
                  1,
                  false,
                  false,
                  WaitReason::NothingToBorrow,
                  "shareq: nothing to borrow in p4 (3/4 node used, 1/1 lendable borrowed)"},
        AdmitCase{"lender_itself_may_use_what_it_did_not_lend",
                  P4(),
                  {Running(1).share("prodexp1").amount(3)},
                  "prodexp2",
                  "p4",
                  1,
                  true,
                  true,
                  WaitReason::None,
                  ""},
        AdmitCase{"unassigned_capacity_is_lendable_without_lenders",
                  Unassigned(),
                  {Running(1).share("b").amount(2)},
                  "a",
                  "p4",
                  4,
                  true,
                  false,
                  WaitReason::None,
                  ""},
        AdmitCase{"beyond_unassigned_capacity_nothing_is_lendable",
                  Unassigned(),
                  {Running(1).share("a").amount(4)},
                  "a",
                  "p4",
                  1,
                  false,
                  false,
                  WaitReason::NothingToBorrow,
                  ""},
        AdmitCase{"share_without_line_in_family_cannot_run_there",
                  Unassigned(),
                  {},
                  "c",
                  "p4",
                  1,
                  false,
                  false,
                  WaitReason::NoQuotaInFamily,
                  "shareq: share c has no quota in family p4"},
        AdmitCase{"quota_zero_share_can_only_borrow",
                  Unassigned(),
                  {},
                  "c",
                  "p5",
                  8,
                  true,
                  false,
                  WaitReason::None,
                  ""},
        AdmitCase{"job_larger_than_family_can_never_run",
                  P4(),
                  {},
                  "prodexp1",
                  "p4",
                  5,
                  false,
                  false,
                  WaitReason::LargerThanFamily,
                  "shareq: asks for 5 node, more than family p4's capacity of 4"},
        AdmitCase{"zero_amount_always_fits",
                  P4(),
                  {Running(1).share("prodexp1").amount(4)},
                  "prodexp2",
                  "p4",
                  0,
                  true,
                  true,
                  WaitReason::None,
                  ""}),
    [](const auto& info) { return info.param.name; });

// The family has 4 nodes in its partition but the site reserved only 3.
TEST(Admission, CapacityBelowThePartitionsSizeIsTheLimit) {
  const Cluster cluster = Cluster().family("p4", Unit::Node, 3).share("a", "p4", 3);
  const World world(cluster, {Running(1).share("a").amount(3)});
  const Admission admission = admit(world.ledger(), world.share("a"), world.family("p4"), 1);
  EXPECT_FALSE(admission.can_start);
  EXPECT_EQ(admission.reason, WaitReason::NothingToBorrow);
}

TEST(Admission, UnknownShareOrFamilyIsNoQuota) {
  const World world(P4(), {});
  EXPECT_EQ(admit(world.ledger(), 99, 0, 1).reason, WaitReason::NoQuotaInFamily);
  EXPECT_EQ(admit(world.ledger(), 0, 99, 1).reason, WaitReason::NoQuotaInFamily);
  EXPECT_EQ(describe(WaitReason::NoQuotaInFamily, world.ledger(), 99, 99, 1),
            "shareq: share ? has no quota in family ?");
}

TEST(Describe, NamesReclaimMinRuntime) {
  const World world(P4().reclaim_min_runtime(600), {});
  EXPECT_EQ(describe(WaitReason::ReclaimMinRuntime, world.ledger(), 0, 0, 1),
            "shareq: waiting for borrowed jobs in p4 to reach ReclaimMinRuntime=600s");
  EXPECT_EQ(describe(WaitReason::None, world.ledger(), 0, 0, 1), "");
}

TEST(Describe, UsesTheFamilysUnit) {
  const World world(Unassigned(), {Running(1).share("c").family("p5").amount(8)});
  EXPECT_EQ(describe(WaitReason::NothingToBorrow, world.ledger(), world.share("c"),
                     world.family("p5"), 1),
            "shareq: family p5 at capacity (8/8 gres/gpu); nothing idle to borrow");
}

}  // namespace
}  // namespace shareq::policy::testing
