// Benchmarks of the policy core at the sizes of issue 3: ordering 100,000 pending jobs over 1,000
// shares and 4 families, choosing victims among 10,000 running jobs, building the Ledger.
// Targets: ordering < 50 ms, one victim choice < 1 ms. Run from a Release build.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "config.hpp"
#include "policy/ledger.hpp"
#include "policy/ordering.hpp"
#include "policy/policy.hpp"
#include "policy/victims.hpp"

namespace {

using namespace shareq;
using namespace shareq::policy;

// "prefix" + number, written so that GCC 12's -Wrestrict false positive (PR 105651) at -O3
// does not fire.
std::string named(const char* prefix, long long number) {
  std::string out(prefix);
  out += std::to_string(number);
  return out;
}

constexpr int kFamilies = 4;
constexpr int kShares = 1000;
constexpr int64_t kQuota = 20;  // GPUs per share and family
constexpr Time kNow = 1'000'000;

// 4 GPU families of 20,000 GPUs, each split evenly among 1,000 shares.
Policy make_policy() {
  Config config;
  for (int f = 0; f < kFamilies; ++f) {
    const std::string name = named("p", f);
    config.families.push_back({name, {name}, Unit::Gpu, kShares * kQuota, 0});
    for (int s = 0; s < kShares; ++s) {
      config.shares.push_back({named("share", s), name, kQuota, Limit{}, Limit{}, 0});
    }
  }
  config.reclaim_min_runtime_s = 600;
  return Policy::compile(config);
}

// 10,000 jobs of 2 GPUs, all in family 0: the even shares run 40 each (20 borrowed), filling it.
std::vector<RunningJob> make_running(const Policy& policy) {
  std::vector<RunningJob> running;
  std::mt19937 rng(1);
  JobId id = 1;
  for (int s = 0; s < kShares; s += 2) {
    const ShareId share = *policy.share_id(named("share", s));
    for (int j = 0; j < 20; ++j) {
      running.push_back({id++, share, 0, 2, static_cast<int>(rng() % 100),
                         static_cast<Time>(rng() % (kNow - 1000))});
    }
  }
  return running;
}

std::vector<PendingJob> make_pending(const Policy& policy, size_t count) {
  std::vector<PendingJob> pending;
  std::mt19937 rng(2);
  for (size_t i = 0; i < count; ++i) {
    PendingJob job{static_cast<JobId>(100'000 + i),
                   static_cast<ShareId>(rng() % kShares),
                   static_cast<int>(rng() % 100),
                   static_cast<Time>(i),
                   {}};
    const int requests = 1 + static_cast<int>(rng() % 2);
    for (int r = 0; r < requests; ++r) {
      job.requests.push_back({static_cast<FamilyId>(rng() % kFamilies), 1 + int64_t(rng() % 16)});
    }
    pending.push_back(std::move(job));
  }
  (void)policy;
  return pending;
}

DecayedUsage make_decayed(const Policy& policy) {
  std::mt19937 rng(3);
  DecayedUsage usage(policy.share_count() * policy.family_count());
  for (double& u : usage) u = static_cast<double>(rng() % 1'000'000);
  return usage;
}

void BM_LedgerFrom10000RunningJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  for (auto _ : state) {
    Ledger ledger(policy, running);
    benchmark::DoNotOptimize(ledger);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(running.size()));
}
BENCHMARK(BM_LedgerFrom10000RunningJobs)->Unit(benchmark::kMicrosecond);

void BM_Prioritize100000PendingJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  const Ledger ledger(policy, running);
  const auto pending = make_pending(policy, 100'000);
  const auto decayed = make_decayed(policy);
  for (auto _ : state) {
    auto factors = prioritize(ledger, decayed, pending);
    benchmark::DoNotOptimize(factors.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pending.size()));
}
BENCHMARK(BM_Prioritize100000PendingJobs)->Unit(benchmark::kMillisecond);

// An idle share asks for 16 GPUs in the full family: reclaim 8 jobs from 500 borrowing shares.
void BM_ReclaimAmong10000RunningJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  const Ledger ledger(policy, running);
  const PendingJob job{1, *policy.share_id("share1"), 50, 0, {{0, 16}}};
  for (auto _ : state) {
    auto choice = pick_victims(ledger, job, 0, 16, running, kNow);
    if (!choice.possible || choice.victims.size() != 8) state.SkipWithError("unexpected choice");
    benchmark::DoNotOptimize(choice.victims.data());
  }
}
BENCHMARK(BM_ReclaimAmong10000RunningJobs)->Unit(benchmark::kMicrosecond);

// The slow path: every borrowed job is too young, so reclaim runs twice to name the reason.
void BM_ReclaimBlockedByMinRuntime(benchmark::State& state) {
  const Policy policy = make_policy();
  auto running = make_running(policy);
  for (RunningJob& job : running) job.start_time = kNow - 10;
  const Ledger ledger(policy, running);
  const PendingJob job{1, *policy.share_id("share1"), 50, 0, {{0, 16}}};
  for (auto _ : state) {
    auto choice = pick_victims(ledger, job, 0, 16, running, kNow);
    if (choice.reason != WaitReason::ReclaimMinRuntime) state.SkipWithError("unexpected choice");
    benchmark::DoNotOptimize(choice);
  }
}
BENCHMARK(BM_ReclaimBlockedByMinRuntime)->Unit(benchmark::kMicrosecond);

// A borrowing share's priority-99 job preempts inside its share (its 20 jobs among 10,000).
void BM_InShareAmong10000RunningJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  const Ledger ledger(policy, running);
  const PendingJob job{1, *policy.share_id("share0"), 99, 0, {{0, 4}}};
  for (auto _ : state) {
    auto choice = pick_victims(ledger, job, 0, 4, running, kNow);
    if (!choice.possible) state.SkipWithError("unexpected choice");
    benchmark::DoNotOptimize(choice.victims.data());
  }
}
BENCHMARK(BM_InShareAmong10000RunningJobs)->Unit(benchmark::kMicrosecond);

// preempt_p_preemptable's pairwise test over every running job.
void BM_MayPreemptEach10000RunningJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  const Ledger ledger(policy, running);
  const PendingJob job{1, *policy.share_id("share1"), 50, 0, {{0, 16}}};
  for (auto _ : state) {
    int eligible = 0;
    for (const RunningJob& r : running) eligible += may_preempt(ledger, job, 0, 16, r, kNow);
    benchmark::DoNotOptimize(eligible);
  }
}
BENCHMARK(BM_MayPreemptEach10000RunningJobs)->Unit(benchmark::kMicrosecond);

// What preempt/shareq works out once per running snapshot for "can anything be preempted?".
void BM_PreemptionExposureOf10000RunningJobs(benchmark::State& state) {
  const Policy policy = make_policy();
  const auto running = make_running(policy);
  const Ledger ledger(policy, running);
  for (auto _ : state) {
    PreemptionExposure exposure = preemption_exposure(ledger, running);
    benchmark::DoNotOptimize(exposure);
  }
}
BENCHMARK(BM_PreemptionExposureOf10000RunningJobs)->Unit(benchmark::kMicrosecond);

// The answer itself, at each of Slurm's questions, in its slowest case: nothing reclaimable and
// every one of the 1,000 shares checked (each runs and waits at priority 50: the answer is no).
void BM_AnyPreemptableOver1000Shares(benchmark::State& state) {
  PreemptionExposure exposure;
  exposure.lowest_in_share.assign(kShares, 50);
  const std::vector<int> highest_pending(kShares, 50);
  for (auto _ : state) {
    bool any = any_preemptable(exposure, highest_pending);
    benchmark::DoNotOptimize(any);
  }
}
BENCHMARK(BM_AnyPreemptableOver1000Shares)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
