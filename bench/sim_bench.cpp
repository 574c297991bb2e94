// shareq sim's speed: replays a synthetic, seeded workload of one million jobs on 1,000 nodes of
// 8 GPUs (10 shares of unequal demand, so some borrow and get reclaimed) and prints jobs per
// second. Usage: sim_bench [JOBS] [NODES] [SEED] [LOAD] [--fifo]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "config.hpp"
#include "policy/policy.hpp"
#include "sim/simulate.hpp"

namespace {

using shareq::sim::Trace;

struct BenchArgs {
  int64_t jobs = 1'000'000;
  int64_t nodes = 1000;
  uint64_t seed = 7;
  double load = 0.97;  // offered GPU-seconds over capacity
  bool fifo = false;
};

BenchArgs parse_args(int argc, char** argv) {
  BenchArgs a;
  int position = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fifo") {
      a.fifo = true;
      continue;
    }
    const int64_t value = std::strtoll(arg.c_str(), nullptr, 10);
    if (position == 0) a.jobs = value;
    if (position == 1) a.nodes = value;
    if (position == 2) a.seed = static_cast<uint64_t>(value);
    if (position == 3) a.load = std::strtod(arg.c_str(), nullptr);
    ++position;
  }
  return a;
}

std::string shareq_conf(int64_t gpus) {
  std::string text = "Family=gpu Partitions=gpu Capacity=gres/gpu=" + std::to_string(gpus) + "\n";
  for (int s = 0; s < 10; ++s) {
    text += "Share=s" + std::to_string(s) +
            " Family=gpu Quota=gres/gpu=" + std::to_string(gpus / 10) + "\n";
  }
  return text + "ReclaimMinRuntime=300\nReclaimAfter=60\nInSharePreemption=no\n";
}

// Offered load `a.load` of the GPUs; share s asks for demand in proportion to 1/(s+1).
Trace synthetic_trace(const BenchArgs& a) {
  std::mt19937_64 random(a.seed);
  const int64_t sizes[] = {1, 2, 4, 8, 16, 32};
  std::discrete_distribution<int> size_of({30, 25, 20, 15, 5, 5});
  std::discrete_distribution<int> share_of({100, 50, 33, 25, 20, 17, 14, 12, 11, 10});
  std::exponential_distribution<double> run_of(1.0 / 3600.0);
  const double mean_gpu_s = 5.2 * 3600.0;
  std::exponential_distribution<double> gap_of(a.load * double(a.nodes * 8) / mean_gpu_s);
  Trace trace;
  trace.jobs.reserve(static_cast<size_t>(a.jobs));
  double now = 0;
  for (int64_t i = 0; i < a.jobs; ++i) {
    now += gap_of(random);
    shareq::sim::TraceJob job;
    job.id = std::to_string(i + 1);
    job.share = "s" + std::to_string(share_of(random));
    job.partitions = {"gpu"};
    job.submit = static_cast<int64_t>(now);
    job.run_s = 1 + static_cast<int64_t>(run_of(random));
    job.gpus = sizes[size_of(random)];
    job.priority = static_cast<int>(random() % 100);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

}  // namespace

int main(int argc, char** argv) {
  const BenchArgs a = parse_args(argc, argv);
  shareq::sim::SlurmCluster cluster;
  shareq::sim::SimPartition partition{"gpu", {}};
  for (int64_t n = 0; n < a.nodes; ++n) {
    cluster.nodes.push_back({"n" + std::to_string(n + 1), 8});
    partition.nodes.push_back(static_cast<int>(n));
  }
  cluster.partitions.push_back(partition);
  const auto parsed = shareq::parse_config(shareq_conf(a.nodes * 8), "bench.conf");
  const auto policy = shareq::policy::Policy::compile(*parsed.config);
  const Trace trace = synthetic_trace(a);
  const auto started = std::chrono::steady_clock::now();
  const auto workload = shareq::sim::prepare_workload(trace, cluster, policy);
  shareq::sim::SimOptions options;
  options.keep_jobs = false;
  const auto kind = a.fifo ? shareq::sim::SchedulerKind::Fifo : shareq::sim::SchedulerKind::Shareq;
  const auto result = shareq::sim::simulate(trace, workload, cluster, policy, kind, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& f = result.families.front();
  std::printf("%s: %lld jobs on %lld nodes (seed %llu) in %.2f s: %.0f jobs/s\n",
              a.fifo ? "fifo" : "shareq", static_cast<long long>(a.jobs),
              static_cast<long long>(a.nodes), static_cast<unsigned long long>(a.seed), seconds,
              double(a.jobs) / seconds);
  std::printf(
      "strict %.1f%%, placeable %.1f%%, wait P50 %lld s, P90 %lld s, preempted runs %lld, "
      "passes %lld, decide() calls %lld, never started %lld\n",
      f.strict * 100, f.placeable * 100, static_cast<long long>(f.wait.p50),
      static_cast<long long>(f.wait.p90), static_cast<long long>(f.preempted_runs),
      static_cast<long long>(result.passes), static_cast<long long>(result.decisions),
      static_cast<long long>(result.never_started));
  return 0;
}
