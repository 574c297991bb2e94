// Checks every decision must pass, whatever the scenario (used after each pick_victims / admit).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "policy_builders.hpp"

namespace shareq::policy::testing {

// After the victims go and the job starts: capacity holds, the preemptor does not borrow, reclaim
// took only from other shares over quota and left them at or above quota, in-share took only
// strictly lower priorities of the same share, and every victim passes may_preempt.
inline void expect_valid_victims(const World& world, const PendingJob& job, FamilyId family,
                                 int64_t amount, Time now, const VictimChoice& choice) {
  const Ledger before = world.ledger();
  const Admission admission = admit(before, job.share, family, amount);
  EXPECT_EQ(choice.possible, choice.reason == WaitReason::None);
  if (!choice.possible) {
    EXPECT_TRUE(choice.victims.empty());
    return;
  }
  if (admission.can_start) {
    EXPECT_TRUE(choice.victims.empty());
  }
  std::set<JobId> seen;
  for (const Victim& victim : choice.victims) {
    EXPECT_TRUE(seen.insert(victim.id).second) << "victim " << victim.id << " twice";
    const auto it = std::find_if(world.running.begin(), world.running.end(),
                                 [&](const RunningJob& r) { return r.id == victim.id; });
    ASSERT_NE(it, world.running.end()) << "victim " << victim.id << " is not running";
    EXPECT_EQ(it->family, family);
    EXPECT_TRUE(may_preempt(before, job, family, amount, *it, now)) << "victim " << victim.id;
    if (victim.kind == PreemptKind::Reclaim) {
      EXPECT_NE(it->share, job.share);
      EXPECT_GT(before.borrowed(it->share, family), 0) << "reclaimed from a share within quota";
      EXPECT_TRUE(admission.within_quota) << "a borrower reclaimed";
      EXPECT_GE(now - it->start_time, world.policy.reclaim_min_runtime_s);
    } else {
      EXPECT_EQ(it->share, job.share);
      EXPECT_LT(it->priority, job.priority);
      EXPECT_TRUE(world.policy.in_share_preemption);
    }
  }
  World after = world;
  after.apply(choice, job, family, amount, now);
  const Ledger ledger = after.ledger();
  EXPECT_LE(ledger.used(family), ledger.capacity(family)) << "capacity exceeded";
  if (!choice.victims.empty()) {
    EXPECT_LE(ledger.usage(job.share, family), ledger.quota(job.share, family))
        << "the preemptor borrows";
  }
  for (const Victim& victim : choice.victims) {
    const auto it = std::find_if(world.running.begin(), world.running.end(),
                                 [&](const RunningJob& r) { return r.id == victim.id; });
    if (victim.kind == PreemptKind::Reclaim) {
      EXPECT_GE(ledger.usage(it->share, family), ledger.quota(it->share, family))
          << "share taken below its quota";
    }
  }
}

// When admit lets a job start: capacity, the borrow limit and the lendable total hold after it.
inline void expect_valid_admission(const World& world, const PendingJob& job, FamilyId family,
                                   int64_t amount, const Admission& admission) {
  EXPECT_EQ(admission.can_start, admission.reason == WaitReason::None);
  if (!admission.can_start) return;
  World after = world;
  after.apply(VictimChoice{true, {}, WaitReason::None}, job, family, amount, 0);
  const Ledger ledger = after.ledger();
  EXPECT_LE(ledger.used(family), ledger.capacity(family));
  const QuotaRule* rule = world.policy.rule(job.share, family);
  ASSERT_NE(rule, nullptr);
  EXPECT_LE(ledger.borrowed(job.share, family), rule->borrow_limit);
  if (!admission.within_quota) {
    EXPECT_LE(ledger.borrowed_total(family), ledger.lendable(family));
  }
}

}  // namespace shareq::policy::testing
