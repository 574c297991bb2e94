// What one simulated run reports: per family and per share, and per job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"
#include "sim/trace.hpp"

namespace shareq::sim {

// Waits from a job's first submission to the start of the run that completed, in seconds.
struct WaitFigures {
  int64_t p50 = 0, p90 = 0, max = 0;
};

struct FamilyFigures {
  std::string family;
  int64_t gpus = 0;      // GPUs of the family's nodes
  double strict = 0;     // docs/benchmarks.md: busy / min(GPUs, busy + waiting)
  double placeable = 0;  // busy / (busy + what waiting jobs could take where GPUs are free)
  int64_t jobs = 0;      // jobs that ran to their end here
  WaitFigures wait;
  int64_t preempted_runs = 0;
  double used_gpu_hours = 0;  // GPU-hours busy, preempted runs included
  double borrowed_gpu_hours = 0;
  double lost_gpu_hours = 0;  // of used: the runs that were preempted
};

struct ShareFigures {
  std::string share;  // lower-case, as Slurm stores accounts
  std::string family;
  int64_t quota = 0;  // in the family's unit
  Unit unit = Unit::Gpu;
  double strict = 0;  // the share's busy over what its own work could use
  int64_t jobs = 0;
  WaitFigures wait;
  int64_t preempted_runs = 0;  // runs of its jobs that were preempted (requeued)
  double used_gpu_hours = 0;
  double borrowed_gpu_hours = 0;  // GPU-hours run beyond its quota
  double lost_gpu_hours = 0;      // GPU-hours of its runs that were preempted
};

struct JobRecord {
  std::string id;  // the trace's
  std::string share;
  std::string family;                                    // empty when it never started
  int64_t submit = -1, start = -1, end = -1, wait = -1;  // simulated seconds; -1: never
  int64_t preempted = 0;
  std::string nodes;  // node names, comma-separated
};

struct SimResult {
  std::string label;  // "shareq", "shareq (other.conf)", "fifo"
  std::vector<FamilyFigures> families;
  std::vector<ShareFigures> shares;  // shares with a quota or jobs, by family then share
  std::vector<JobRecord> jobs;       // in id order, when SimOptions::keep_jobs
  std::vector<Skipped> dropped;      // trace jobs that could never run here
  int64_t jobs_replayed = 0;
  int64_t never_started = 0;
  int64_t span_s = 0;  // first submission to last end
  int64_t passes = 0;
  int64_t decisions = 0;  // decide() calls
};

}  // namespace shareq::sim
