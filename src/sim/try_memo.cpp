#include "sim/try_memo.hpp"

#include <map>

namespace shareq::sim {
namespace {

// Everything of a job a try reads but its due flag and priority, as numbers.
std::vector<int64_t> kind_of(const SimJob& job) {
  std::vector<int64_t> kind{job.share};
  for (size_t r = 0; r < job.requests.size(); ++r) {
    const Shape& shape = job.shapes[r];
    kind.insert(kind.end(), {job.requests[r].family, job.requests[r].amount, shape.partition,
                             shape.per_node, shape.nodes});
  }
  return kind;
}

}  // namespace

TryMemo::TryMemo(const Workload& workload) {
  std::map<std::vector<int64_t>, uint32_t> kinds;
  kind_.reserve(workload.jobs.size());
  for (const SimJob& job : workload.jobs) {
    const auto [it, added] = kinds.try_emplace(kind_of(job), static_cast<uint32_t>(kinds.size()));
    kind_.push_back(it->second);
  }
  slots_.resize(kinds.size() * 2);
}

TryMemo::Slot& TryMemo::slot(const TryKey& key, uint64_t generation, policy::Time now) {
  if (generation != generation_ || now != now_) {
    generation_ = generation;
    now_ = now;
    ++stamp_;
  }
  Slot& slot = slots_[size_t{key.kind} * 2 + (key.due ? 1 : 0)];
  if (slot.stamp != stamp_) {
    slot.stamp = stamp_;
    slot.failed.clear();
  }
  return slot;
}

const Attempt* TryMemo::find(const TryKey& key, uint64_t generation, policy::Time now) {
  for (const auto& [priority, attempt] : slot(key, generation, now).failed) {
    if (priority == key.priority) return &attempt;
  }
  return nullptr;
}

void TryMemo::remember(const TryKey& key, uint64_t generation, policy::Time now,
                       const Attempt& attempt) {
  slot(key, generation, now).failed.emplace_back(key.priority, attempt);
}

}  // namespace shareq::sim
