#include "sim/meter.hpp"

#include <algorithm>

namespace shareq::sim {

Meter::Meter(const Workload& workload, const policy::Policy& policy)
    : workload_(workload),
      family_count_(policy.family_count()),
      families_(family_count_),
      busy_(family_count_),
      waiting_(family_count_),
      shapes_(family_count_),
      pairs_(policy.share_count() * family_count_),
      pair_busy_(pairs_.size()),
      pair_waiting_(pairs_.size()),
      pair_time_(pairs_.size()) {}

void Meter::advance(policy::Time now, const NodePool& pool) {
  const double dt = static_cast<double>(now - family_time_);
  family_time_ = now;
  if (dt <= 0) return;
  for (size_t f = 0; f < family_count_; ++f) {
    const int64_t capacity = workload_.family_gpus[f];
    const int64_t busy = std::min(busy_[f], capacity);
    const int64_t room = std::min(capacity - busy, waiting_[f]);
    FamilySeconds& s = families_[f];
    s.busy += dt * static_cast<double>(busy);
    s.fillable += dt * static_cast<double>(busy + room);
    if (room <= 0) {
      s.placeable += dt * static_cast<double>(busy);
      continue;
    }
    const auto& histogram = pool.free_histogram(workload_.family_group(f));
    s.placeable += dt * static_cast<double>(busy + placeable_gpus(histogram, shapes_[f], room));
  }
}

void Meter::touch(policy::ShareId s, policy::FamilyId f, policy::Time now,
                  const policy::Ledger& ledger) {
  const size_t i = index(s, f);
  const double dt = static_cast<double>(now - pair_time_[i]);
  pair_time_[i] = now;
  if (dt <= 0) return;
  const int64_t capacity = workload_.family_gpus[f];
  PairSeconds& p = pairs_[i];
  p.busy += dt * static_cast<double>(pair_busy_[i]);
  p.could += dt * static_cast<double>(std::min(capacity, pair_busy_[i] + pair_waiting_[i]));
  const int64_t borrowed = ledger.borrowed(s, f);
  if (borrowed <= 0) return;
  if (ledger.policy().family(f).unit == Unit::Gpu) {
    p.borrowed += dt * static_cast<double>(borrowed);
  } else if (const int64_t usage = ledger.usage(s, f); usage > 0) {
    p.borrowed += dt * static_cast<double>(borrowed) * static_cast<double>(pair_busy_[i]) /
                  static_cast<double>(usage);
  }
}

void Meter::change_busy(policy::ShareId s, policy::FamilyId f, int64_t gpus) {
  busy_[f] += gpus;
  pair_busy_[index(s, f)] += gpus;
}

void Meter::change_waiting(policy::ShareId s, policy::FamilyId f, const Shape& shape, int delta) {
  waiting_[f] += delta * shape.gpus();
  pair_waiting_[index(s, f)] += delta * shape.gpus();
  auto& count = shapes_[f][{-shape.gpus(), shape.per_node}];
  count += delta;
  if (count == 0) shapes_[f].erase({-shape.gpus(), shape.per_node});
}

}  // namespace shareq::sim
