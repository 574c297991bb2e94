// What a bounded pass (Slurm's main pass) has tested so far, shared by the schedulers that run
// Slurm's passes: the records per partition (partition_job_depth), in all (default_queue_depth),
// and the partitions stopped by a job that did not fit (fail_by_part). Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/schedulers.hpp"
#include "sim/workload.hpp"

namespace shareq::sim {

// Partitions that share a node: a stopped partition's nodes are off for the rest of the pass in
// Slurm; the simulator stops every partition sharing a node with it (exact when none overlap).
std::vector<std::vector<int>> overlapping_partitions(const Workload& workload);

class PassRecords {
 public:
  PassRecords(const PassBounds& bounds, const std::vector<std::vector<int>>& overlapping);

  // The requests of `job` this pass tests, in the user's order, each counted against the bounds
  // (Slurm counts a record of a stopped partition too). `done` is false when the pass is over
  // after them: queue_depth reached, or every partition had its partition_depth records.
  std::vector<int> next(const SimJob& job, bool& done);
  [[nodiscard]] bool stopped(int partition) const { return stopped_[partition] != 0; }
  void stop(int partition);

 private:
  const PassBounds& bounds_;
  const std::vector<std::vector<int>>& overlapping_;
  std::vector<int64_t> in_partition_;  // records tested, by partition
  std::vector<char> stopped_;          // partitions stopped (or overlapping a stopped one)
  int64_t records_ = 0;                // in all
  size_t exhausted_ = 0;               // partitions that had partition_depth records
};

}  // namespace shareq::sim
