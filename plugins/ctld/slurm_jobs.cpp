#include "slurm_jobs.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <string_view>

#include "controller_state.hpp"
#include "job_tag.hpp"
#include "lock_order.hpp"
#include "log.hpp"
#include "policy/held_capacity.hpp"
#include "slurmctld_headers.hpp"

namespace shareq::ctld {
namespace {

RunningJobsPart& part() { return controller_state().jobs; }

uint64_t tres_count(const uint64_t* counts, int pos) {
  if (counts == nullptr || pos < 0) return 0;
  const uint64_t v = counts[pos];
  return (v == NO_VAL64 || v == INFINITE64 || v == NO_CONSUME_VAL64) ? 0 : v;
}

policy::JobRecord common_record(JobRecord* job) {
  policy::JobRecord r;
  r.id = job->job_id;
  r.account = job->account != nullptr ? job->account : "";
  r.admin_comment = job->admin_comment != nullptr ? job->admin_comment : "";
  r.start_time = job->start_time;
  r.restarts = job->restart_cnt;
  r.submit_time = job->details != nullptr ? job->details->submit_time : 0;
  // details->nice carries NICE_OFFSET; 0 (a job that never had details filled) means none.
  if (job->details != nullptr && job->details->nice != 0 && job->details->nice != NO_VAL) {
    r.nice = static_cast<int64_t>(job->details->nice) - static_cast<int64_t>(NICE_OFFSET);
  }
  return r;
}

int64_t clamp(uint64_t v) {
  return static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max()));
}

// The GPUs a starting or running job holds. select_nodes() calls select_p_job_begin and
// select_p_select_nodeinfo_set before job_set_alloc_tres(), so at those points tres_alloc_cnt is
// still empty (or, after a requeue, the previous run's): the request is then the allocation.
uint64_t allocated_gpus(JobRecord* job) {
  const uint64_t allocated =
      job->tres_alloc_cnt != nullptr ? tres_count(job->tres_alloc_cnt, gpu_tres_pos()) : 0;
  return std::max(requested_gpus(job), allocated);
}

RunningAllocation allocation_of(JobRecord* job) {
  RunningAllocation a;
  a.account = job->account != nullptr ? job->account : "";
  a.partition =
      job->part_ptr != nullptr && job->part_ptr->name != nullptr ? job->part_ptr->name : "";
  a.nodes = job->node_cnt;
  if (a.nodes == 0 && job->job_resrcs != nullptr) a.nodes = job->job_resrcs->nhosts;
  a.gpus = allocated_gpus(job);
  if (job->admin_comment != nullptr) {
    a.tag = std::string(shareq::split_admin_comment(job->admin_comment).tag);
  }
  a.start_time = job->start_time;
  return a;
}

// The registry's mutex held.
void record_locked(RunningJobsPart& jobs, JobRecord* job) {
  RunningAllocation a = allocation_of(job);
  if (a.nodes == 0) {
    jobs.registry.erase(job->job_id);
  } else {
    jobs.registry[job->job_id] = std::move(a);
  }
}

}  // namespace

namespace {

// Looks gres/gpu up in assoc_mgr's TRES table (assoc_mgr_find_tres_pos takes assoc_mgr's TRES
// read lock) and caches the answer, -1 when it is not tracked (logged once per change to -1).
int look_up_gpu_tres_pos() {
  slurmdb_tres_rec_t rec{};
  rec.type = const_cast<char*>("gres");
  rec.name = const_cast<char*>("gpu");
  const int pos = assoc_mgr_find_tres_pos(&rec, false);
  if (pos >= 0) {
    part().gpu_tres_pos.store(pos, std::memory_order_relaxed);
    return pos;
  }
  if (part().gpu_tres_pos.exchange(-1) != -1) {
    log_error(
        "gres/gpu is not a tracked TRES: GPU families count 0 GPUs per job; add gres/gpu "
        "to AccountingStorageTRES in slurm.conf");
  }
  return -1;
}

}  // namespace

int gpu_tres_pos() {
  const int pos = part().gpu_tres_pos.load(std::memory_order_relaxed);
  if (pos != RunningJobsPart::kGpuPosUnknown) return pos;
  return look_up_gpu_tres_pos();
}

int resolve_gpu_tres_pos() {
  assert_no_shareq_lock("resolve_gpu_tres_pos (assoc_mgr's TRES lock)");
  const bool asked = part().gpu_tres_refresh.exchange(false, std::memory_order_acq_rel);
  const int pos = part().gpu_tres_pos.load(std::memory_order_relaxed);
  if (pos >= 0 && !asked) return pos;
  return look_up_gpu_tres_pos();
}

void request_tres_pos_refresh() { part().gpu_tres_refresh.store(true, std::memory_order_release); }

void forget_tres_pos() {
  part().gpu_tres_pos.store(RunningJobsPart::kGpuPosUnknown);
  part().gpu_tres_refresh.store(false);
}

policy::JobRecord running_record(JobRecord* job) {
  policy::JobRecord r = common_record(job);
  if (job->part_ptr != nullptr && job->part_ptr->name != nullptr) {
    r.partitions.emplace_back(job->part_ptr->name);
  }
  r.nodes = job->node_cnt;
  r.gpus = clamp(allocated_gpus(job));
  return r;
}

policy::JobRecord pending_record(JobRecord* job) {
  policy::JobRecord r = common_record(job);
  if (job->part_ptr_list != nullptr) {
    list_itr_t* it = list_iterator_create(job->part_ptr_list);
    while (auto* part = static_cast<part_record_t*>(list_next(it))) {
      r.partitions.emplace_back(part->name);
    }
    list_iterator_destroy(it);
  } else if (job->part_ptr != nullptr && job->part_ptr->name != nullptr) {
    r.partitions.emplace_back(job->part_ptr->name);
  }
  uint64_t nodes = tres_count(job->tres_req_cnt, TRES_ARRAY_NODE);
  if (nodes == 0 && job->details != nullptr) nodes = job->details->min_nodes;
  r.nodes = clamp(std::max<uint64_t>(nodes, 1));
  r.gpus = clamp(requested_gpus(job));
  if (job->details != nullptr) r.eligible_time = job->details->begin_time;
  return r;
}

std::optional<policy::PendingJob> pending_job(const LoadedConfig& config, JobRecord* job,
                                              time_t now) {
  return policy::as_pending(config.policy, pending_record(job), now);
}

std::optional<policy::HeldCapacity> held_capacity(const policy::Policy& policy,
                                                  const ReservedPool& pool) {
  return policy::held_capacity(policy, pool.pool, pool.account, pool.partition,
                               static_cast<int64_t>(pool.nodes.size()), clamp(pool.gpus));
}

namespace {

std::vector<policy::HeldCapacity> held_of(const policy::Policy& policy,
                                          const std::vector<ReservedPool>& reserved) {
  std::vector<policy::HeldCapacity> held;
  for (const ReservedPool& pool : reserved) {
    if (auto h = held_capacity(policy, pool)) held.push_back(*h);
  }
  return held;
}

}  // namespace

RunningSnapshot::RunningSnapshot(std::shared_ptr<const LoadedConfig> config,
                                 std::vector<policy::RunningJob> running, uint64_t generation,
                                 std::vector<ReservedPool> reserved)
    : config_(std::move(config)),
      running_(std::move(running)),
      reserved_(std::move(reserved)),
      held_(held_of(config_->policy, reserved_)),
      ledger_(config_->policy, running_, held_),
      generation_(generation),
      exposure_(policy::preemption_exposure(ledger_, running_)) {}

std::shared_ptr<const RunningSnapshot> RunningSnapshot::with_running(
    std::vector<policy::RunningJob> running, uint64_t generation) const {
  return std::make_shared<const RunningSnapshot>(config_, std::move(running), generation,
                                                 reserved_);
}

const policy::RunningJob* RunningSnapshot::find(policy::JobId id) const {
  const auto it =
      std::lower_bound(running_.begin(), running_.end(), id,
                       [](const policy::RunningJob& r, policy::JobId key) { return r.id < key; });
  return it != running_.end() && it->id == id ? &*it : nullptr;
}

void set_reserved_pools(std::vector<ReservedPool> pools) {
  {
    RunningJobsPart& jobs = part();
    const RankedLock lock(jobs.mutex);
    if (pools == jobs.reserved) return;
    jobs.reserved = std::move(pools);
  }
  jobs_changed();
}

uint64_t requested_gpus(JobRecord* job) { return tres_count(job->tres_req_cnt, gpu_tres_pos()); }

void jobs_changed() {
  part().generation.fetch_add(1, std::memory_order_acq_rel);
  if (const JobsChangedListener listener = part().listener.load(std::memory_order_acquire))
    listener();
}

void ranking_wanted() {
  if (const JobsChangedListener listener = part().listener.load(std::memory_order_acquire))
    listener();
}

void set_jobs_changed_listener(JobsChangedListener listener) {
  part().listener.store(listener, std::memory_order_release);
}

uint64_t jobs_generation() { return part().generation.load(std::memory_order_acquire); }

void job_allocated(JobRecord* job) {
  {
    RunningJobsPart& jobs = part();
    const RankedLock lock(jobs.mutex);
    record_locked(jobs, job);
  }
  jobs_changed();
}

void job_released(JobRecord* job) {
  {
    RunningJobsPart& jobs = part();
    const RankedLock lock(jobs.mutex);
    jobs.registry.erase(job->job_id);
  }
  jobs_changed();
}

bool job_holds_allocation(uint32_t job_id) {
  RunningJobsPart& jobs = part();
  const RankedLock lock(jobs.mutex);
  return jobs.registry.contains(job_id);
}

void jobs_reset(void* job_list_ptr) {
  (void)resolve_gpu_tres_pos();
  std::map<uint32_t, RunningAllocation> fresh;
  if (job_list_ptr != nullptr) {
    list_itr_t* it = list_iterator_create(static_cast<list_t*>(job_list_ptr));
    while (auto* job = static_cast<job_record_t*>(list_next(it))) {
      if (!IS_JOB_RUNNING(job) && !IS_JOB_SUSPENDED(job)) continue;
      RunningAllocation a = allocation_of(job);
      if (a.nodes > 0) fresh.emplace(job->job_id, std::move(a));
    }
    list_iterator_destroy(it);
  }
  {
    RunningJobsPart& jobs = part();
    const RankedLock lock(jobs.mutex);
    jobs.registry = std::move(fresh);
  }
  jobs_changed();
}

std::shared_ptr<const RunningSnapshot> running_snapshot(
    const std::shared_ptr<const LoadedConfig>& config) {
  RunningJobsPart& jobs = part();
  const RankedLock lock(jobs.mutex);
  const uint64_t generation = jobs_generation();
  if (jobs.snapshot && jobs.snapshot->generation() == generation &&
      &jobs.snapshot->config() == config.get()) {
    return jobs.snapshot;
  }
  std::vector<policy::RunningJob> running;
  running.reserve(jobs.registry.size());
  for (const auto& [id, a] : jobs.registry) {
    policy::JobRecord record;
    record.id = id;
    record.account = a.account;
    record.partitions = {a.partition};
    record.nodes = clamp(a.nodes);
    record.gpus = clamp(a.gpus);
    record.admin_comment = a.tag;
    record.start_time = a.start_time;
    if (auto r = policy::as_running(config->policy, record)) running.push_back(*r);
  }
  // The registry is ordered by id, so `running` is too.
  jobs.snapshot = std::make_shared<const RunningSnapshot>(config, std::move(running), generation,
                                                          jobs.reserved);
  return jobs.snapshot;
}

}  // namespace shareq::ctld
