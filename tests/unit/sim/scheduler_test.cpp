// The scheduler's skips (a job's known Wait, the memo of tries by kind, no ranking in a pass where
// nothing can start) change no decision: random small workloads, replayed with the skips and
// without (every pending job tried in every pass of the ranked queue), give the same runs, job by
// job, and the same figures; only the decide() count differs. The workloads mix two families of
// unequal nodes, jobs that ask for either or both in either order, few --share-priority values,
// ReclaimAfter and ReclaimMinRuntime on and off, and InSharePreemption on and off, so that
// reclaim, in-share preemption, placement reclaim and the rules of time all happen.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "config.hpp"
#include "policy/policy.hpp"
#include "sim/simulate.hpp"

namespace shareq::sim {
namespace {

struct Scenario {
  uint64_t seed = 0;
  int64_t min_runtime = 0, after = 0;
  bool in_share = false;
  int64_t requeue_hold = 0;  // a requeued job's BeginTime, from its requeue
};

std::string shareq_conf(const Scenario& s) {
  return "Family=fa Partitions=a Capacity=gres/gpu=32\n"
         "Family=fb Partitions=b Capacity=gres/gpu=8\n"
         "Share=s0 Family=fa Quota=gres/gpu=12\nShare=s0 Family=fb Quota=gres/gpu=4\n"
         "Share=s1 Family=fa Quota=gres/gpu=8\nShare=s1 Family=fb Quota=gres/gpu=2\n"
         "Share=s2 Family=fa Quota=gres/gpu=8\nShare=s2 Family=fb Quota=gres/gpu=2\n"
         "Share=s3 Family=fa Quota=gres/gpu=4\n"
         "ReclaimMinRuntime=" +
         std::to_string(s.min_runtime) + "\nReclaimAfter=" + std::to_string(s.after) +
         "\nInSharePreemption=" + (s.in_share ? "yes" : "no") + "\n";
}

// Partition a: 4 nodes of 8 GPUs; b: 2 nodes of 4.
SlurmCluster cluster() {
  SlurmCluster c;
  SimPartition a{"a", {}};
  SimPartition b{"b", {}};
  for (int n = 0; n < 6; ++n) {
    c.nodes.push_back({"n" + std::to_string(n + 1), n < 4 ? 8 : 4});
    (n < 4 ? a : b).nodes.push_back(n);
  }
  c.partitions = {a, b};
  return c;
}

// Bursts of jobs (several at one instant) far beyond the GPUs, so that queues build up.
Trace trace(uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::vector<std::vector<std::string>> partitions = {
      {"a"}, {"a"}, {"b"}, {"a", "b"}, {"b", "a"}};
  const int64_t gpus[] = {1, 1, 2, 2, 4, 4, 8, 16};
  Trace t;
  int64_t now = 0;
  for (int i = 0; i < 400; ++i) {
    now += random() % 3 == 0 ? static_cast<int64_t>(random() % 40) : 0;
    TraceJob job;
    job.id = std::to_string(i + 1);
    job.share = "s" + std::to_string(random() % 4);
    job.partitions = partitions[random() % partitions.size()];
    job.submit = now;
    job.run_s = 1 + static_cast<int64_t>(random() % 300);
    job.gpus = gpus[random() % 8];
    job.nodes = job.gpus == 4 && random() % 2 == 0 ? 2 : 0;
    job.priority = static_cast<int>(random() % 3) * 10;
    t.jobs.push_back(std::move(job));
  }
  return t;
}

SimResult replay(const Scenario& s, bool skip) {
  const auto parsed = parse_config(shareq_conf(s), "test.conf");
  const auto policy = policy::Policy::compile(*parsed.config);
  const SlurmCluster c = cluster();
  const Trace t = trace(s.seed);
  const Workload workload = prepare_workload(t, c, policy);
  SimOptions options;
  options.scheduler.sched_interval_s = 7;
  options.scheduler.bf_interval_s = 11;  // Slurm's bounded main pass, and backfill
  options.scheduler.partition_job_depth = 3;
  options.scheduler.bf_min_prio_reserve = policy::kWithinQuotaTier;
  options.tuning.priority_calc_period_s = 50;
  options.tuning.decay_half_life_s = 600;
  options.tuning.skip_known_waits = skip;
  options.requeue_hold_s = s.requeue_hold;
  return simulate(t, workload, c, policy, SchedulerKind::Shareq, options);
}

void expect_same(const SimResult& a, const SimResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const JobRecord& x = a.jobs[i];
    const JobRecord& y = b.jobs[i];
    EXPECT_TRUE(x.family == y.family && x.start == y.start && x.end == y.end &&
                x.preempted == y.preempted && x.nodes == y.nodes)
        << "job " << x.id << ": " << x.family << " " << x.start << "-" << x.end << " on " << x.nodes
        << " (" << x.preempted << " preempted) against " << y.family << " " << y.start << "-"
        << y.end << " on " << y.nodes << " (" << y.preempted << ")";
  }
  EXPECT_EQ(a.passes, b.passes);
  EXPECT_EQ(a.span_s, b.span_s);
  ASSERT_EQ(a.families.size(), b.families.size());
  for (size_t f = 0; f < a.families.size(); ++f) {
    EXPECT_EQ(a.families[f].strict, b.families[f].strict);
    EXPECT_EQ(a.families[f].placeable, b.families[f].placeable);
    EXPECT_EQ(a.families[f].borrowed_gpu_hours, b.families[f].borrowed_gpu_hours);
  }
}

TEST(ShareqScheduler, SkipsChangeNoDecision) {
  int64_t preempted = 0;
  int64_t skipped = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (const int64_t min_runtime : {int64_t{0}, int64_t{60}}) {
      for (const int64_t after : {int64_t{0}, int64_t{30}}) {
        for (const bool in_share : {false, true}) {
          // A requeued job's BeginTime (13 s) with the in-share runs: a job left out of passes.
          const Scenario s{seed, min_runtime, after, in_share, in_share ? 13 : 0};
          SCOPED_TRACE("seed " + std::to_string(seed) + " min_runtime " +
                       std::to_string(min_runtime) + " after " + std::to_string(after) +
                       (in_share ? " in-share, requeue hold 13 s" : ""));
          const SimResult fast = replay(s, true);
          const SimResult reference = replay(s, false);
          expect_same(fast, reference);
          for (const auto& f : reference.families) preempted += f.preempted_runs;
          skipped += reference.decisions - fast.decisions;
        }
      }
    }
  }
  EXPECT_GT(preempted, 100);  // the scenarios do preempt
  EXPECT_GT(skipped, 10000);  // and the skips do skip
}

}  // namespace
}  // namespace shareq::sim

namespace shareq::sim {
namespace {

// A trace's account in no share borrows as the unlisted accounts' share, as job_submit/shareq
// admits it; under UnlistedAccounts=refuse it is dropped with the reason.
TEST(PrepareWorkload, AnAccountInNoShareIsUnlistedOrDropped) {
  Trace t;
  TraceJob job;
  job.id = "1";
  job.share = "physics";
  job.partitions = {"a"};
  job.run_s = 10;
  job.gpus = 8;
  t.jobs.push_back(job);
  const std::string conf =
      "Family=fa Partitions=a Capacity=gres/gpu=32\n"
      "Share=s0 Family=fa Quota=gres/gpu=32\n";
  const auto borrow = policy::Policy::compile(*parse_config(conf, "t.conf").config);
  const Workload admitted = prepare_workload(t, cluster(), borrow);
  ASSERT_EQ(admitted.jobs.size(), 1u);
  EXPECT_EQ(admitted.jobs[0].share, *borrow.unlisted_share());
  const auto refuse =
      policy::Policy::compile(*parse_config(conf + "UnlistedAccounts=refuse\n", "t.conf").config);
  const Workload dropped = prepare_workload(t, cluster(), refuse);
  EXPECT_TRUE(dropped.jobs.empty());
  ASSERT_EQ(dropped.dropped.size(), 1u);
  EXPECT_EQ(dropped.dropped[0].reason,
            "share \"physics\" is in no Share= line (UnlistedAccounts=refuse)");
}

}  // namespace
}  // namespace shareq::sim
