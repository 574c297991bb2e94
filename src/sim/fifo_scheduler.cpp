// The --baseline fifo: first come first served with EASY backfill, no shares, on the same
// placement model. Jobs in submission order (job id); each tries its first partition only.
// The first job that cannot start in a partition gets a reservation: the earliest time the
// running jobs' ends give it room (their actual run times stand for the time limits: perfect
// estimates, the best case for backfill), on the nodes best fit would then give it. A later job
// of that partition starts now only if it fits and either ends by then or leaves the reserved
// nodes enough for it. One reservation per partition.
#include <algorithm>
#include <unordered_map>

#include "sim/schedulers.hpp"

namespace shareq::sim {
namespace {

struct Reservation {
  policy::Time shadow = 0;
  int64_t per_node = 0;                       // what the reserved job needs on each node
  std::unordered_map<int, int64_t> reserved;  // reserved node -> free GPUs projected at shadow
};

// The earliest time `id` fits on `partition`, replaying the running jobs' ends in order.
Reservation reserve(const SimState& state, policy::JobId id) {
  const Shape& shape = state.job(id).shapes.front();
  const auto& members = state.workload().groups[shape.partition];
  std::unordered_map<int, int64_t> free;
  for (int n : members) free[n] = state.pool().free(n);
  std::vector<std::pair<policy::Time, policy::JobId>> ends;
  for (const auto& r : state.running()) {
    ends.emplace_back(state.run(r.id).start + state.job(r.id).run_s, r.id);
  }
  std::sort(ends.begin(), ends.end());
  Reservation out{state.now(), shape.per_node, {}};
  int64_t roomy = 0;
  for (const auto& [n, f] : free) roomy += f >= shape.per_node ? 1 : 0;
  for (const auto& [end, job] : ends) {
    const JobRun& run = state.run(job);
    const int64_t per_node = state.job(job).shapes[run.request].per_node;
    for (int n : run.nodes) {
      const auto found = free.find(n);
      if (found == free.end()) continue;
      const bool was = found->second >= shape.per_node;
      found->second += per_node;
      roomy += !was && found->second >= shape.per_node ? 1 : 0;
    }
    if (roomy < shape.nodes) continue;
    out.shadow = end;
    std::vector<std::pair<int64_t, int>> fits;
    for (int n : members) {
      if (free[n] >= shape.per_node) fits.emplace_back(free[n], n);
    }
    std::sort(fits.begin(), fits.end());
    for (int64_t i = 0; i < shape.nodes; ++i) out.reserved[fits[i].second] = fits[i].first;
    return out;
  }
  out.shadow = INT64_MAX;  // never (cannot happen for a job prepare_workload kept)
  return out;
}

// Whether starting `id` on `nodes` now keeps the reservation; updates it when it does.
bool keeps(Reservation& reservation, const SimState& state, policy::JobId id,
           const std::vector<int>& nodes) {
  const SimJob& job = state.job(id);
  if (state.now() + job.run_s <= reservation.shadow) return true;
  const int64_t per_node = job.shapes.front().per_node;
  for (int n : nodes) {
    const auto found = reservation.reserved.find(n);
    if (found != reservation.reserved.end() && found->second - per_node < reservation.per_node) {
      return false;
    }
  }
  for (int n : nodes) {
    const auto found = reservation.reserved.find(n);
    if (found != reservation.reserved.end()) found->second -= per_node;
  }
  return true;
}

}  // namespace

PassOutcome FifoScheduler::pass(const PassBounds& /*bounds: every pass is whole*/) {
  PassOutcome out;
  std::vector<policy::JobId> order;
  for (const auto& p : state_.pending()) {
    if (p.eligible) order.push_back(p.id);
  }
  std::sort(order.begin(), order.end());
  std::unordered_map<int, Reservation> reservations;  // partition -> its reservation
  for (policy::JobId id : order) {
    const int partition = state_.job(id).shapes.front().partition;
    const auto nodes = state_.best_fit(id, 0);
    const auto held = reservations.find(partition);
    if (held == reservations.end()) {
      if (nodes) {
        state_.start(id, 0, *nodes);
        out.changed = true;
      } else {
        reservations.emplace(partition, reserve(state_, id));
      }
      continue;
    }
    if (nodes && keeps(held->second, state_, id, *nodes)) {
      state_.start(id, 0, *nodes);
      out.changed = true;
    }
  }
  return out;
}

}  // namespace shareq::sim
