#include "sim/sim_state.hpp"

#include <limits>

namespace shareq::sim {

SimState::SimState(const Workload& workload, const policy::Policy& policy,
                   policy::Time requeue_hold_s)
    : workload_(workload),
      policy_(policy),
      pool_(workload.node_gpus, workload.groups),
      ledger_(policy, {}),
      meter_(workload, policy),
      runs_(workload.jobs.size()),
      requeue_hold_s_(requeue_hold_s) {}

bool SimState::advance(policy::Time pass_at) {
  constexpr policy::Time kNever = std::numeric_limits<policy::Time>::max();
  while (!ends_.empty() && ends_.top().epoch != runs_[ends_.top().job - 1].epoch) ends_.pop();
  policy::Time next = pass_at;
  if (next_submit_ < workload_.jobs.size()) {
    next = std::min(next, workload_.jobs[next_submit_].submit);
  }
  if (!ends_.empty()) next = std::min(next, ends_.top().time);
  if (!begins_.empty()) next = std::min(next, begins_.top().time);
  if (next == kNever) return false;
  meter_.advance(next, pool_);
  now_ = std::max(now_, next);
  return true;
}

bool SimState::apply_events() {
  bool any = false;
  while (!ends_.empty() && ends_.top().time <= now_) {
    const EndEvent event = ends_.top();
    ends_.pop();
    if (event.epoch != runs_[event.job - 1].epoch) continue;
    end(event.job);
    any = true;
  }
  while (next_submit_ < workload_.jobs.size() && workload_.jobs[next_submit_].submit <= now_) {
    submit(workload_.jobs[next_submit_++].id, true);
    any = true;
  }
  while (!begins_.empty() && begins_.top().time <= now_) {
    const EndEvent event = begins_.top();
    begins_.pop();
    const JobRun& r = runs_[event.job - 1];
    if (r.status != JobStatus::Pending || r.epoch != event.epoch) continue;
    pending_[r.slot].eligible = true;
    ++queue_generation_;
    any = true;
  }
  return any;
}

void SimState::submit(policy::JobId id, bool first) {
  const SimJob& j = job(id);
  JobRun& r = runs_[id - 1];
  if (first) r.first_submit = now_;
  r.status = JobStatus::Pending;
  r.slot = pending_.size();
  ++queue_generation_;
  pending_.push_back({id, j.share, j.priority, now_, j.requests});
  const policy::FamilyId f = j.requests.front().family;
  meter_.touch(j.share, f, now_, ledger_);
  meter_.change_waiting(j.share, f, j.shapes.front(), +1);
}

void SimState::remove_pending(policy::JobId id) {
  const JobRun& r = runs_[id - 1];
  const size_t slot = r.slot;
  ++queue_generation_;
  if (slot + 1 != pending_.size()) {
    pending_[slot] = std::move(pending_.back());
    runs_[pending_[slot].id - 1].slot = slot;
  }
  pending_.pop_back();
  const SimJob& j = job(id);
  const policy::FamilyId f = j.requests.front().family;
  meter_.touch(j.share, f, now_, ledger_);
  meter_.change_waiting(j.share, f, j.shapes.front(), -1);
}

void SimState::start(policy::JobId id, int request, const std::vector<int>& nodes) {
  remove_pending(id);
  const SimJob& j = job(id);
  JobRun& r = runs_[id - 1];
  const auto& req = j.requests[request];
  r.status = JobStatus::Running;
  r.request = request;
  r.nodes = nodes;
  r.start = now_;
  r.slot = running_.size();
  ++generation_;
  ++queue_generation_;
  const policy::RunningJob running{id, j.share, req.family, req.amount, j.priority, now_};
  meter_.touch(j.share, req.family, now_, ledger_);
  meter_.change_busy(j.share, req.family, j.shapes[request].gpus());
  running_.push_back(running);
  ledger_.add(running);
  pool_.allocate(nodes, j.shapes[request].per_node);
  ends_.push({now_ + j.run_s, id, r.epoch});
}

void SimState::stop_running(policy::JobId id) {
  JobRun& r = runs_[id - 1];
  const SimJob& j = job(id);
  const size_t slot = r.slot;
  const policy::RunningJob running = running_[slot];
  ++generation_;
  ++queue_generation_;
  if (slot + 1 != running_.size()) {
    running_[slot] = running_.back();
    runs_[running_[slot].id - 1].slot = slot;
  }
  running_.pop_back();
  meter_.touch(j.share, running.family, now_, ledger_);
  meter_.change_busy(j.share, running.family, -j.shapes[r.request].gpus());
  ledger_.remove(running);
  pool_.release(r.nodes, j.shapes[r.request].per_node);
}

void SimState::end(policy::JobId id) {
  stop_running(id);
  JobRun& r = runs_[id - 1];
  r.status = JobStatus::Done;
  r.end = now_;
}

void SimState::requeue(policy::JobId id) {
  JobRun& r = runs_[id - 1];
  const SimJob& j = job(id);
  meter_.add_lost(j.share, j.requests[r.request].family,
                  static_cast<double>((now_ - r.start) * j.shapes[r.request].gpus()));
  stop_running(id);
  ++r.preempted;
  ++r.epoch;
  r.nodes.clear();
  r.start = -1;
  submit(id, false);
  if (requeue_hold_s_ > 0) {
    pending_[r.slot].eligible = false;
    begins_.push({now_ + requeue_hold_s_, id, r.epoch});
  }
}

std::optional<std::vector<int>> SimState::best_fit(policy::JobId id, int request) const {
  const Shape& shape = job(id).shapes[request];
  return pool_.best_fit(shape.partition, shape.per_node, shape.nodes);
}

std::optional<std::vector<int>> SimState::first_fit(policy::JobId id, int request) const {
  const Shape& shape = job(id).shapes[request];
  return pool_.first_fit(shape.partition, shape.per_node, shape.nodes);
}

void SimState::finish_metering() {
  meter_.advance(now_, pool_);
  for (policy::ShareId s = 0; s < policy_.share_count(); ++s) {
    for (policy::FamilyId f = 0; f < policy_.family_count(); ++f) meter_.touch(s, f, now_, ledger_);
  }
}

}  // namespace shareq::sim
