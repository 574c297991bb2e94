// pick_victims against a slow reference that follows victims.hpp's words literally: the next
// victim re-chosen from scratch after every pick, then every subset of the candidate sequence
// enumerated to find the one that frees enough with the smallest sum of 2^position.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>

#include "policy_builders.hpp"
#include "policy_invariants.hpp"

namespace shareq::policy::testing {
namespace {

// The state of one family, recomputed from the job list (no Ledger).
struct Slow {
  const Policy& policy;
  FamilyId family;
  std::map<ShareId, int64_t> usage;
  int64_t used = 0;

  Slow(const Policy& p, FamilyId f, const std::vector<RunningJob>& running) : policy(p), family(f) {
    for (const RunningJob& r : running) {
      if (r.family != f || r.amount <= 0 || r.share >= p.share_count()) continue;
      usage[r.share] += r.amount;
      used += r.amount;
    }
  }
  int64_t quota(ShareId s) const { return policy.quota(s, family); }
  int64_t capacity() const { return policy.family(family).capacity; }
  int64_t borrowed(ShareId s) const { return std::max<int64_t>(0, usage.at(s) - quota(s)); }

  // admit, from the definitions in admission.hpp.
  Admission admit(ShareId s, int64_t amount) const {
    Admission a;
    const QuotaRule* rule = policy.rule(s, family);
    if (rule == nullptr) return {false, false, WaitReason::NoQuotaInFamily};
    if (amount > capacity()) return {false, false, WaitReason::LargerThanFamily};
    const int64_t mine = usage.count(s) ? usage.at(s) : 0;
    a.within_quota = mine + amount <= rule->quota;
    const bool fits = used + amount <= capacity();
    if (a.within_quota) {
      a.reason = fits ? WaitReason::None : WaitReason::FamilyAtCapacity;
    } else if (mine + amount - rule->quota > rule->borrow_limit) {
      a.reason = WaitReason::ShareAtBorrowLimit;
    } else {
      int64_t borrowed = 0;
      int64_t lendable = policy.family(family).unassigned;
      for (size_t t = 0; t < policy.share_count(); ++t) {
        const QuotaRule* r = policy.rule(static_cast<ShareId>(t), family);
        const int64_t u =
            (t == s ? amount : 0) +
            (usage.count(static_cast<ShareId>(t)) ? usage.at(static_cast<ShareId>(t)) : 0);
        if (r == nullptr) {
          borrowed += u;
          continue;
        }
        borrowed += std::max<int64_t>(0, u - r->quota);
        lendable += std::min(std::max<int64_t>(0, r->quota - u), r->lend_limit);
      }
      a.reason = fits && borrowed <= lendable ? WaitReason::None : WaitReason::NothingToBorrow;
    }
    a.can_start = a.reason == WaitReason::None;
    return a;
  }
};

// "prefix" + number, written so that GCC 12's -Wrestrict false positive (PR 105651) at -O3
// does not fire.
std::string named(const char* prefix, long long number) {
  std::string out(prefix);
  out += std::to_string(number);
  return out;
}

bool first_by_share_order(const RunningJob& a, const RunningJob& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.start_time != b.start_time) return a.start_time > b.start_time;
  return a.id > b.id;
}

// Reclaim's candidate sequence: each time, the first eligible job by the comparator chain.
std::vector<RunningJob> reclaim_sequence(Slow state, const std::vector<RunningJob>& running,
                                         ShareId self, Time now, bool honour_min_runtime) {
  std::vector<RunningJob> sequence;
  std::vector<bool> taken(running.size(), false);
  for (;;) {
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const RunningJob& r = running[i];
      if (taken[i] || r.family != state.family || r.share == self || r.amount <= 0) continue;
      if (r.share >= state.policy.share_count()) continue;
      if (honour_min_runtime && now - r.start_time < state.policy.reclaim_min_runtime_s) continue;
      if (state.borrowed(r.share) <= 0 ||
          state.usage.at(r.share) - r.amount < state.quota(r.share)) {
        continue;
      }
      if (!best) {
        best = i;
        continue;
      }
      const RunningJob& b = running[*best];
      const int64_t mine = state.borrowed(r.share);
      const int64_t theirs = state.borrowed(b.share);
      if (mine > theirs || (mine == theirs && first_by_share_order(r, b))) best = i;
    }
    if (!best) return sequence;
    taken[*best] = true;
    sequence.push_back(running[*best]);
    state.usage[running[*best].share] -= running[*best].amount;
  }
}

// The subset of `sequence` freeing at least `need` with the smallest sum of 2^position.
std::optional<std::vector<RunningJob>> colex_first(const std::vector<RunningJob>& sequence,
                                                   int64_t need) {
  const size_t n = sequence.size();
  for (uint64_t mask = 0; mask < (uint64_t{1} << n); ++mask) {  // increasing sum of 2^position
    int64_t freed = 0;
    for (size_t i = 0; i < n; ++i) {
      if (mask >> i & 1) freed += sequence[i].amount;
    }
    if (freed < need) continue;
    std::vector<RunningJob> chosen;
    for (size_t i = 0; i < n; ++i) {
      if (mask >> i & 1) chosen.push_back(sequence[i]);
    }
    return chosen;
  }
  return std::nullopt;
}

VictimChoice choice_of(const std::vector<RunningJob>& jobs, PreemptKind kind) {
  VictimChoice c{true, {}, WaitReason::None};
  for (const RunningJob& j : jobs) c.victims.push_back({j.id, kind});
  return c;
}

VictimChoice reference(const Policy& policy, const std::vector<RunningJob>& running,
                       const PendingJob& job, FamilyId family, int64_t amount, Time now) {
  const Slow state(policy, family, running);
  const Admission a = state.admit(job.share, amount);
  if (a.can_start) return {true, {}, WaitReason::None};
  if (a.reason == WaitReason::NoQuotaInFamily || a.reason == WaitReason::LargerThanFamily) {
    return {false, {}, a.reason};
  }
  if (a.within_quota) {
    if (now - job.submit_time < policy.reclaim_after_s)
      return {false, {}, WaitReason::ReclaimAfter};
    const int64_t need = state.used + amount - state.capacity();
    if (auto v = colex_first(reclaim_sequence(state, running, job.share, now, true), need)) {
      return choice_of(*v, PreemptKind::Reclaim);
    }
    const bool young =
        colex_first(reclaim_sequence(state, running, job.share, now, false), need).has_value();
    return {false, {}, young ? WaitReason::ReclaimMinRuntime : WaitReason::FamilyAtCapacity};
  }
  if (policy.in_share_preemption) {
    std::vector<RunningJob> sequence;
    for (const RunningJob& r : running) {
      if (r.family == family && r.share == job.share && r.priority < job.priority && r.amount > 0) {
        sequence.push_back(r);
      }
    }
    std::sort(sequence.begin(), sequence.end(), first_by_share_order);
    const int64_t mine = state.usage.count(job.share) ? state.usage.at(job.share) : 0;
    const int64_t need =
        std::max(mine + amount - state.quota(job.share), state.used + amount - state.capacity());
    if (auto v = colex_first(sequence, need)) return choice_of(*v, PreemptKind::InShare);
  }
  return {false, {}, a.reason};
}

// A small random instance: 1-2 families, up to 4 shares, up to 10 running jobs.
struct Instance {
  Cluster cluster;
  std::vector<Running> running;
  Pending job{0};
  std::string family;
  int64_t amount = 0;
  Time now = 0;
};

Limit random_limit(std::mt19937& rng) {
  switch (rng() % 3) {
    case 0:
      return Unlimited();
    case 1:
      return Amount(rng() % 4);
    default:
      return Percent(rng() % 101);
  }
}

Instance random_instance(std::mt19937& rng) {
  Instance in;
  const int families = 1 + rng() % 2;
  const int shares = 2 + rng() % 3;
  const char* share_names[] = {"s0", "s1", "s2", "s3"};
  std::vector<int64_t> capacity;
  for (int f = 0; f < families; ++f) {
    capacity.push_back(2 + rng() % 11);
    in.cluster.family(named("f", f), Unit::Node, capacity.back());
    int64_t left = capacity.back();
    for (int s = 0; s < shares; ++s) {
      if (rng() % 5 == 0) continue;  // no Share= line here
      const int64_t quota = left == 0 ? 0 : rng() % (left + 1);
      left -= quota;
      in.cluster.share(share_names[s], named("f", f), quota)
          .borrow_limit(random_limit(rng))
          .lend_limit(random_limit(rng));
    }
  }
  in.cluster.reclaim_min_runtime(rng() % 3 == 0 ? 0 : rng() % 20)
      .reclaim_after(rng() % 3 == 0 ? 0 : rng() % 30)
      .in_share_preemption(rng() % 4 != 0);
  in.now = 20 + rng() % 20;
  std::vector<int64_t> used(families, 0);
  std::vector<JobId> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::shuffle(ids.begin(), ids.end(), rng);
  const int jobs = 4 + rng() % 7;
  for (int j = 0; j < jobs; ++j) {
    const int f = rng() % families;
    const int64_t amount = 1 + rng() % 3;
    if (used[f] + amount > capacity[f]) continue;  // running jobs never exceed capacity
    used[f] += amount;
    in.running.push_back(Running(ids[j])
                             .share(share_names[rng() % shares])
                             .family(named("f", f))
                             .amount(amount)
                             .priority(rng() % 5)
                             .started(rng() % 40));
  }
  const int f = rng() % families;
  in.family = named("f", f);
  in.amount = rng() % 8 == 0 ? rng() % (capacity[f] + 2) : 1 + rng() % 3;
  in.job = Pending(100)
               .share(share_names[rng() % shares])
               .priority(rng() % 6)
               .submitted(Time(rng() % 20))
               .request(in.family, in.amount);
  return in;
}

std::string show(const VictimChoice& c) {
  std::string out = c.possible ? "possible" : "not possible";
  out += named(" reason ", static_cast<int>(c.reason)) + " victims";
  for (const Victim& v : c.victims) {
    out += named(" ", v.id) + (v.kind == PreemptKind::Reclaim ? "r" : "i");
  }
  return out;
}

TEST(VictimsReference, FastChoiceMatchesBruteForceOnRandomInstances) {
  std::map<std::string, int> seen;  // how often each kind of outcome came up
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    for (int round = 0; round < 2000; ++round) {
      const Instance in = random_instance(rng);
      const World world(in.cluster, in.running);
      const PendingJob job = in.job.resolve(world.policy);
      const FamilyId family = world.family(in.family);
      const VictimChoice fast =
          pick_victims(world.ledger(), job, family, in.amount, world.running, in.now);
      const VictimChoice slow =
          reference(world.policy, world.running, job, family, in.amount, in.now);
      ASSERT_EQ(show(fast), show(slow)) << "seed " << seed << " round " << round;
      EXPECT_EQ(admit(world.ledger(), job.share, family, in.amount).can_start,
                Slow(world.policy, family, world.running).admit(job.share, in.amount).can_start);
      expect_valid_victims(world, job, family, in.amount, in.now, fast);
      ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed << " round " << round;
      if (!fast.victims.empty()) {
        ++seen[fast.victims[0].kind == PreemptKind::Reclaim ? "reclaim" : "in-share"];
        seen["several victims"] += fast.victims.size() > 1;
      }
      ++seen[named("reason ", static_cast<int>(fast.reason))];
    }
  }
  for (const char* outcome : {"reclaim", "in-share", "several victims", "reason 0", "reason 2",
                              "reason 3", "reason 4", "reason 5"}) {
    EXPECT_GE(seen[outcome], 20) << "too few instances with outcome " << outcome;
  }
}

}  // namespace
}  // namespace shareq::policy::testing
