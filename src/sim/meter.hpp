// Utilisation and borrowing over simulated time, integrated between events (docs/benchmarks.md:
// strict and placeable). Per family: busy, what the running and waiting work could use, and what
// the waiting jobs could take where GPUs are free. Per (share, family): busy, could-use and
// borrowed GPU-seconds, each brought up to date just before the pair's figures change (O(1)).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "policy/ledger.hpp"
#include "sim/node_pool.hpp"
#include "sim/workload.hpp"

namespace shareq::sim {

struct PairSeconds {
  double busy = 0, could = 0, borrowed = 0;  // GPU-seconds
  double lost = 0;  // GPU-seconds of runs preempted (part of busy: the GPUs ran, the work is lost)
};

struct FamilySeconds {
  double busy = 0, fillable = 0, placeable = 0;  // GPU-seconds
};

class Meter {
 public:
  Meter(const Workload& workload, const policy::Policy& policy);

  // Integrates the families up to `now` (call before anything changes at `now`).
  void advance(policy::Time now, const NodePool& pool);
  // Integrates one pair up to `now`; call before its busy, waiting or ledger usage changes.
  void touch(policy::ShareId s, policy::FamilyId f, policy::Time now, const policy::Ledger& ledger);

  void change_busy(policy::ShareId s, policy::FamilyId f, int64_t gpus);  // +/- GPUs
  void change_waiting(policy::ShareId s, policy::FamilyId f, const Shape& shape, int delta);
  void add_lost(policy::ShareId s, policy::FamilyId f, double gpu_seconds) {
    pairs_[index(s, f)].lost += gpu_seconds;
  }

  [[nodiscard]] const FamilySeconds& family(policy::FamilyId f) const { return families_[f]; }
  [[nodiscard]] const PairSeconds& pair(policy::ShareId s, policy::FamilyId f) const {
    return pairs_[index(s, f)];
  }

 private:
  [[nodiscard]] size_t index(policy::ShareId s, policy::FamilyId f) const {
    return s * family_count_ + f;
  }

  const Workload& workload_;
  size_t family_count_;
  policy::Time family_time_ = 0;
  std::vector<FamilySeconds> families_;
  std::vector<int64_t> busy_, waiting_;                                 // [family]
  std::vector<std::map<std::pair<int64_t, int64_t>, int64_t>> shapes_;  // [family]
  std::vector<PairSeconds> pairs_;
  std::vector<int64_t> pair_busy_, pair_waiting_;
  std::vector<policy::Time> pair_time_;
};

}  // namespace shareq::sim
