// Benchmarks of the policy core at the sizes of issue 3: ordering 100,000 pending jobs over 1,000
// shares and 4 families, choosing victims among 10,000 running jobs, building the Ledger.
// Targets: ordering < 50 ms, one victim choice < 1 ms. Run from a Release build.
// Issue 17 (scale): the same questions in one family of 10,000 nodes, counted in nodes (10,000
// one-node jobs) and in GPUs (8 per node, 40,000 two-GPU jobs), and GPU packing over its nodes.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "config.hpp"
#include "policy/gpu_packing.hpp"
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

// Issue 17: one family of 10,000 nodes. kBigNodes nodes, 1,000 shares; counted in nodes (quota 10
// nodes a share) or in GPUs (8 a node, quota 80 GPUs a share).
constexpr int64_t kBigNodes = 10'000;
constexpr int64_t kGpusPerNode = 8;

Policy make_big_policy(Unit unit) {
  Config config;
  const int64_t per_node = unit == Unit::Gpu ? kGpusPerNode : 1;
  config.families.push_back({"big", {"big"}, unit, kBigNodes * per_node, 0});
  for (int s = 0; s < kShares; ++s) {
    config.shares.push_back(
        {named("share", s), "big", kBigNodes * per_node / kShares, Limit{}, Limit{}, 0});
  }
  config.reclaim_min_runtime_s = 600;
  return Policy::compile(config);
}

// The family full: the even shares run twice their quota (half of it borrowed) in jobs of
// `job_amount` (1 node, or 2 GPUs).
std::vector<RunningJob> make_big_running(const Policy& policy, int64_t job_amount) {
  std::vector<RunningJob> running;
  std::mt19937 rng(1);
  const int64_t per_share = 2 * policy.family(0).capacity / kShares / job_amount;
  JobId id = 1;
  for (int s = 0; s < kShares; s += 2) {
    const ShareId share = *policy.share_id(named("share", s));
    for (int64_t j = 0; j < per_share; ++j) {
      running.push_back({id++, share, 0, job_amount, static_cast<int>(rng() % 100),
                         static_cast<Time>(rng() % (kNow - 1000))});
    }
  }
  return running;
}

// 100,000 pending jobs in the family, 1-16 nodes or GPUs each.
std::vector<PendingJob> make_big_pending(size_t count) {
  std::vector<PendingJob> pending;
  std::mt19937 rng(2);
  for (size_t i = 0; i < count; ++i) {
    pending.push_back({static_cast<JobId>(1'000'000 + i),
                       static_cast<ShareId>(rng() % kShares),
                       static_cast<int>(rng() % 100),
                       static_cast<Time>(i),
                       {{0, 1 + int64_t(rng() % 16)}}});
  }
  return pending;
}

void big_ledger(benchmark::State& state, Unit unit, int64_t job_amount) {
  const Policy policy = make_big_policy(unit);
  const auto running = make_big_running(policy, job_amount);
  for (auto _ : state) {
    Ledger ledger(policy, running);
    benchmark::DoNotOptimize(ledger);
  }
  state.counters["running"] = static_cast<double>(running.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(running.size()));
}

void big_prioritize(benchmark::State& state, Unit unit, int64_t job_amount) {
  const Policy policy = make_big_policy(unit);
  const auto running = make_big_running(policy, job_amount);
  const Ledger ledger(policy, running);
  const auto pending = make_big_pending(100'000);
  const auto decayed = make_decayed(policy);
  for (auto _ : state) {
    auto factors = prioritize(ledger, decayed, pending);
    benchmark::DoNotOptimize(factors.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(pending.size()));
}

// An idle share asks for 8 nodes (or 16 GPUs) in the full family: 8 victims among the borrowers.
void big_reclaim(benchmark::State& state, Unit unit, int64_t job_amount) {
  const Policy policy = make_big_policy(unit);
  const auto running = make_big_running(policy, job_amount);
  const Ledger ledger(policy, running);
  const int64_t amount = 8 * job_amount;
  const PendingJob job{1, *policy.share_id("share1"), 50, 0, {{0, amount}}};
  for (auto _ : state) {
    auto choice = pick_victims(ledger, job, 0, amount, running, kNow);
    if (!choice.possible || choice.victims.size() != 8) state.SkipWithError("unexpected choice");
    benchmark::DoNotOptimize(choice.victims.data());
  }
  state.counters["running"] = static_cast<double>(running.size());
}

void big_exposure(benchmark::State& state, Unit unit, int64_t job_amount) {
  const Policy policy = make_big_policy(unit);
  const auto running = make_big_running(policy, job_amount);
  const Ledger ledger(policy, running);
  for (auto _ : state) {
    PreemptionExposure exposure = preemption_exposure(ledger, running);
    benchmark::DoNotOptimize(exposure);
  }
  state.counters["running"] = static_cast<double>(running.size());
}

void BM_LedgerFamilyOf10000Nodes(benchmark::State& state) { big_ledger(state, Unit::Node, 1); }
BENCHMARK(BM_LedgerFamilyOf10000Nodes)->Unit(benchmark::kMicrosecond);
void BM_LedgerFamilyOf10000NodesInGpus(benchmark::State& state) { big_ledger(state, Unit::Gpu, 2); }
BENCHMARK(BM_LedgerFamilyOf10000NodesInGpus)->Unit(benchmark::kMicrosecond);

void BM_Prioritize100000PendingFamilyOf10000Nodes(benchmark::State& state) {
  big_prioritize(state, Unit::Node, 1);
}
BENCHMARK(BM_Prioritize100000PendingFamilyOf10000Nodes)->Unit(benchmark::kMillisecond);

void BM_ReclaimFamilyOf10000Nodes(benchmark::State& state) { big_reclaim(state, Unit::Node, 1); }
BENCHMARK(BM_ReclaimFamilyOf10000Nodes)->Unit(benchmark::kMicrosecond);
void BM_ReclaimFamilyOf10000NodesInGpus(benchmark::State& state) {
  big_reclaim(state, Unit::Gpu, 2);
}
BENCHMARK(BM_ReclaimFamilyOf10000NodesInGpus)->Unit(benchmark::kMicrosecond);

void BM_PreemptionExposureFamilyOf10000Nodes(benchmark::State& state) {
  big_exposure(state, Unit::Node, 1);
}
BENCHMARK(BM_PreemptionExposureFamilyOf10000Nodes)->Unit(benchmark::kMicrosecond);
void BM_PreemptionExposureFamilyOf10000NodesInGpus(benchmark::State& state) {
  big_exposure(state, Unit::Gpu, 2);
}
BENCHMARK(BM_PreemptionExposureFamilyOf10000NodesInGpus)->Unit(benchmark::kMicrosecond);

// GPU packing (the select wrapper, per job it tests) over the family's 10,000 nodes, each with
// 0-8 GPUs free: the best fit for a 2-GPU job.
void BM_BestFitOver10000Nodes(benchmark::State& state) {
  std::vector<NodeGpus> nodes;
  nodes.reserve(kBigNodes);
  std::mt19937 rng(4);
  for (int i = 0; i < kBigNodes; ++i) {
    nodes.push_back({i, static_cast<int64_t>(rng() % (kGpusPerNode + 1))});
  }
  for (auto _ : state) {
    auto best = best_fit_nodes(nodes, 2);
    benchmark::DoNotOptimize(best.data());
  }
  state.SetItemsProcessed(state.iterations() * kBigNodes);
}
BENCHMARK(BM_BestFitOver10000Nodes)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
