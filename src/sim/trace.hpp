// A workload trace, read from sacct or SWF: the jobs as submitted, before they are matched to a
// cluster and a shareq.conf (prepare.hpp does that).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shareq::sim {

struct TraceJob {
  std::string id;                       // the trace's own job id, for the per-job CSV
  std::string share;                    // the share (Slurm account) it runs under
  std::vector<std::string> partitions;  // in the user's order (-p p5,p4)
  int64_t submit = 0;                   // seconds, on the trace's own clock
  int64_t run_s = 0;                    // how long it ran (> 0)
  int64_t gpus = 0;                     // GPUs in all (> 0)
  int64_t nodes = 0;                    // nodes asked for; 0 = as few as hold the GPUs
  std::optional<int> priority;          // --share-priority; unset = shareq.conf's DefaultPriority
  int line = 0;                         // where it is in the trace file
};

// Lines of a trace that are no job the simulator replays, counted by reason.
struct Skipped {
  std::string reason;  // "never ran (run time <= 0)", "job step", ...
  int64_t count = 0;
};

struct Trace {
  std::vector<TraceJob> jobs;  // in file order
  std::vector<Skipped> skipped;

  void skip(const std::string& reason);  // counts one more under `reason`
};

enum class TraceFormat { Sacct, Swf };

}  // namespace shareq::sim
