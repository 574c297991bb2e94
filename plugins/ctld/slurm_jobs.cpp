#include "slurm_jobs.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "log.hpp"
#include "slurmctld_headers.hpp"
#include "translate.hpp"

namespace shareq::ctld {
namespace {

constexpr int kUnknownPos = -2;
std::atomic<int> g_gpu_pos{kUnknownPos};
std::atomic<uint64_t> g_generation{1};
std::atomic<JobsChangedListener> g_listener{nullptr};

uint64_t tres_count(const uint64_t* counts, int pos) {
  if (counts == nullptr || pos < 0) return 0;
  const uint64_t v = counts[pos];
  return (v == NO_VAL64 || v == INFINITE64 || v == NO_CONSUME_VAL64) ? 0 : v;
}

void fill_common(JobRecord* job, JobView& v) {
  v.view.job_id = job->job_id;
  v.view.account = job->account;
  v.view.spank_env = job->spank_job_env;
  v.view.spank_env_size = job->spank_job_env_size;
  v.view.start_time = job->start_time;
  v.view.submit_time = job->details != nullptr ? job->details->submit_time : 0;
}

void publish_partitions(JobView& v) {
  v.view.partitions = v.partitions.data();
  v.view.partition_count = static_cast<uint32_t>(v.partitions.size());
}

// The GPUs a starting or running job holds. select_nodes() calls select_p_job_begin and
// select_p_select_nodeinfo_set before job_set_alloc_tres(), so at those points tres_alloc_cnt is
// still empty (or, after a requeue, the previous run's): the request is then the allocation.
uint64_t allocated_gpus(JobRecord* job) {
  const uint64_t allocated =
      job->tres_alloc_cnt != nullptr ? tres_count(job->tres_alloc_cnt, gpu_tres_pos()) : 0;
  return std::max(requested_gpus(job), allocated);
}

// One running allocation, copied out of its job record.
struct Allocation {
  std::string account;
  std::string partition;
  uint64_t nodes = 0;
  uint64_t gpus = 0;
  std::string priority_env;  // "SHAREQ_SHARE_PRIORITY=N", or empty
  int64_t start_time = 0;
};

std::mutex g_mutex;  // guards the registry and the cached snapshot
std::map<uint32_t, Allocation> g_registry;
std::vector<ReservedPool> g_reserved;
std::shared_ptr<const RunningSnapshot> g_snapshot;

Allocation allocation_of(JobRecord* job) {
  Allocation a;
  a.account = job->account != nullptr ? job->account : "";
  a.partition =
      job->part_ptr != nullptr && job->part_ptr->name != nullptr ? job->part_ptr->name : "";
  a.nodes = job->node_cnt;
  if (a.nodes == 0 && job->job_resrcs != nullptr) a.nodes = job->job_resrcs->nhosts;
  a.gpus = allocated_gpus(job);
  if (const char* p =
          shareq_env_flag(job->spank_job_env, job->spank_job_env_size, SHAREQ_FLAG_PRIORITY)) {
    a.priority_env = std::string(shareq_flag_names[SHAREQ_FLAG_PRIORITY].env) + "=" + p;
  }
  a.start_time = job->start_time;
  return a;
}

void record_locked(JobRecord* job) {
  Allocation a = allocation_of(job);
  if (a.nodes == 0) {
    g_registry.erase(job->job_id);
  } else {
    g_registry[job->job_id] = std::move(a);
  }
}

}  // namespace

int gpu_tres_pos() {
  int pos = g_gpu_pos.load(std::memory_order_relaxed);
  if (pos >= 0) return pos;
  slurmdb_tres_rec_t rec{};
  rec.type = const_cast<char*>("gres");
  rec.name = const_cast<char*>("gpu");
  pos = assoc_mgr_find_tres_pos(&rec, false);
  if (pos >= 0) {
    g_gpu_pos.store(pos, std::memory_order_relaxed);
  } else if (g_gpu_pos.exchange(-1) != -1) {
    log_error(
        "gres/gpu is not a tracked TRES: GPU families count 0 GPUs per job; add gres/gpu "
        "to AccountingStorageTRES in slurm.conf");
  }
  return pos;
}

void forget_tres_pos() { g_gpu_pos.store(kUnknownPos); }

JobView running_view(JobRecord* job) {
  JobView v;
  fill_common(job, v);
  if (job->part_ptr != nullptr) v.partitions.push_back(job->part_ptr->name);
  publish_partitions(v);
  v.view.nodes = job->node_cnt;
  v.view.gpus = allocated_gpus(job);
  return v;
}

JobView pending_view(JobRecord* job) {
  JobView v;
  fill_common(job, v);
  if (job->part_ptr_list != nullptr) {
    ListIterator it = list_iterator_create(job->part_ptr_list);
    while (auto* part = static_cast<part_record_t*>(list_next(it))) {
      v.partitions.push_back(part->name);
    }
    list_iterator_destroy(it);
  } else if (job->part_ptr != nullptr) {
    v.partitions.push_back(job->part_ptr->name);
  }
  publish_partitions(v);
  uint64_t nodes = tres_count(job->tres_req_cnt, TRES_ARRAY_NODE);
  if (nodes == 0 && job->details != nullptr) nodes = job->details->min_nodes;
  v.view.nodes = std::max<uint64_t>(nodes, 1);
  v.view.gpus = requested_gpus(job);
  return v;
}

std::optional<policy::PendingJob> pending_job(const LoadedConfig& config, JobRecord* job) {
  const JobView v = pending_view(job);
  return to_pending(config.policy, v.view);
}

std::optional<policy::HeldCapacity> held_capacity(const policy::Policy& policy,
                                                  const ReservedPool& pool) {
  const char* partition = pool.partition.c_str();
  shareq_job_view_t v{};
  v.account = pool.account.c_str();
  v.partitions = &partition;
  v.partition_count = 1;
  v.nodes = pool.nodes.size();
  v.gpus = pool.gpus;
  const auto r = to_running(policy, v);
  if (!r) return std::nullopt;
  return policy::HeldCapacity{pool.pool, r->share, r->family, r->amount};
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
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (pools == g_reserved) return;
    g_reserved = std::move(pools);
  }
  jobs_changed();
}

uint64_t requested_gpus(JobRecord* job) { return tres_count(job->tres_req_cnt, gpu_tres_pos()); }

void jobs_changed() {
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  if (const JobsChangedListener listener = g_listener.load(std::memory_order_acquire)) listener();
}

void set_jobs_changed_listener(JobsChangedListener listener) {
  g_listener.store(listener, std::memory_order_release);
}

uint64_t jobs_generation() { return g_generation.load(std::memory_order_acquire); }

void job_allocated(JobRecord* job) {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    record_locked(job);
  }
  jobs_changed();
}

void job_released(JobRecord* job) {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_registry.erase(job->job_id);
  }
  jobs_changed();
}

void jobs_reset(void* jobs) {
  (void)gpu_tres_pos();
  std::map<uint32_t, Allocation> fresh;
  if (jobs != nullptr) {
    ListIterator it = list_iterator_create(static_cast<List>(jobs));
    while (auto* job = static_cast<job_record_t*>(list_next(it))) {
      if (!IS_JOB_RUNNING(job) && !IS_JOB_SUSPENDED(job)) continue;
      Allocation a = allocation_of(job);
      if (a.nodes > 0) fresh.emplace(job->job_id, std::move(a));
    }
    list_iterator_destroy(it);
  }
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_registry = std::move(fresh);
  }
  jobs_changed();
}

std::shared_ptr<const RunningSnapshot> running_snapshot(
    const std::shared_ptr<const LoadedConfig>& config) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  const uint64_t generation = jobs_generation();
  if (g_snapshot && g_snapshot->generation() == generation &&
      &g_snapshot->config() == config.get()) {
    return g_snapshot;
  }
  std::vector<policy::RunningJob> running;
  running.reserve(g_registry.size());
  for (const auto& [id, a] : g_registry) {
    const char* partition = a.partition.c_str();
    char* env[1] = {const_cast<char*>(a.priority_env.c_str())};
    shareq_job_view_t v{};
    v.job_id = id;
    v.account = a.account.c_str();
    v.partitions = &partition;
    v.partition_count = 1;
    v.nodes = a.nodes;
    v.gpus = a.gpus;
    v.spank_env = a.priority_env.empty() ? nullptr : env;
    v.spank_env_size = a.priority_env.empty() ? 0 : 1;
    v.start_time = a.start_time;
    if (auto r = to_running(config->policy, v)) running.push_back(*r);
  }
  // g_registry is ordered by id, so `running` is too.
  g_snapshot =
      std::make_shared<const RunningSnapshot>(config, std::move(running), generation, g_reserved);
  return g_snapshot;
}

}  // namespace shareq::ctld
