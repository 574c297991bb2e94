#include "sim/pass_records.hpp"

namespace shareq::sim {

std::vector<std::vector<int>> overlapping_partitions(const Workload& workload) {
  const size_t partitions = workload.groups.size() - workload.family_gpus.size();
  std::vector<std::vector<char>> on(partitions, std::vector<char>(workload.node_gpus.size(), 0));
  for (size_t p = 0; p < partitions; ++p) {
    for (int n : workload.groups[p]) on[p][n] = 1;
  }
  std::vector<std::vector<int>> out(partitions);
  for (size_t p = 0; p < partitions; ++p) {
    for (size_t q = 0; q < partitions; ++q) {
      bool shared = p == q;
      for (int n : workload.groups[p]) shared = shared || on[q][n] != 0;
      if (shared) out[p].push_back(static_cast<int>(q));
    }
  }
  return out;
}

PassRecords::PassRecords(const PassBounds& bounds, const std::vector<std::vector<int>>& overlapping)
    : bounds_(bounds),
      overlapping_(overlapping),
      in_partition_(overlapping.size(), 0),
      stopped_(overlapping.size(), 0) {}

std::vector<int> PassRecords::next(const SimJob& job, bool& done) {
  std::vector<int> records;
  bool over = false;
  for (int r = 0; r < static_cast<int>(job.requests.size()) && !over; ++r) {
    const int partition = job.shapes[r].partition;
    if (bounds_.partition_depth > 0) {
      int64_t& in = in_partition_[partition];
      if (in >= bounds_.partition_depth) continue;
      if (++in == bounds_.partition_depth) ++exhausted_;
    }
    over = bounds_.queue_depth >= 0 && records_++ >= bounds_.queue_depth;
    records.push_back(r);
  }
  done = !over && !(bounds_.partition_depth > 0 && exhausted_ == overlapping_.size());
  return records;
}

void PassRecords::stop(int partition) {
  for (int p : overlapping_[partition]) stopped_[p] = 1;
}

}  // namespace shareq::sim
