#include "recalc.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "assoc_usage.hpp"
#include "config_state.hpp"
#include "failed_runs.hpp"
#include "job_list_order.hpp"
#include "log.hpp"
#include "pending_priorities.hpp"
#include "reclaim_claims.hpp"
#include "policy/ordering.hpp"
#include "policy/usage.hpp"
#include "slurm_conf_access.hpp"
#include "slurm_jobs.hpp"
#include "slurmctld_headers.hpp"
#include "slurm_lock_guards.hpp"
#include "sprio_factors.h"
#include "usage_store.hpp"
#include "wait_reasons.hpp"
#include "warm_pools.hpp"

namespace shareq::priority {
namespace {

using ctld::log_debug;
using ctld::log_error;
using ctld::log_info;

// Re-ranking after job changes takes at most 1/kRerankDuty of the time: after one that took d,
// the next waits (kRerankDuty - 1) * d. A few milliseconds with 5,000 pending jobs; on a queue
// where that is long, changes coalesce into fewer re-rankings instead of holding the job lock.
constexpr int kRerankDuty = 10;
constexpr const char* kStateFile = "shareq_usage";

ctld::RankedMutex g_mutex{ctld::LockRank::RecalcSignal};  // guards the flags below
std::condition_variable_any g_wake;
bool g_stop = false;
bool g_poke = false;          // a whole pass now (reconfigure)
bool g_jobs_changed = false;  // a job started or ended since the pending jobs were last ranked
// Never destroyed: a fatal() elsewhere ends slurmctld with exit() while it runs, and destroying
// a std::thread that still runs calls std::terminate (a SIGABRT instead of Slurm's exit status).
std::thread& g_thread = *new std::thread;
std::atomic<int64_t> g_last_accrual{0};

std::string state_path() { return ctld::state_file_path(kStateFile); }

// Whether `f` already holds exactly what shareq_fill_priority_factors writes for `parts`.
bool holds_factors(const priority_factors_t& f, const shareq_priority_parts_t& parts) {
  priority_factors_t want{};
  shareq_fill_priority_factors(&parts, &want);
  return f.priority_tres == nullptr && f.tres_weights == nullptr && f.tres_names == nullptr &&
         f.tres_cnt == want.tres_cnt && f.priority_age == want.priority_age &&
         f.priority_assoc == want.priority_assoc && f.priority_fs == want.priority_fs &&
         f.priority_js == want.priority_js && f.priority_part == want.priority_part &&
         f.priority_qos == want.priority_qos &&
#if !SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
         f.direct_prio == want.direct_prio &&
#endif
         f.priority_site == want.priority_site && f.nice == want.nice;
}

// Stores the factors behind `priority` for sprio (nothing to do when they are already there: the
// periodic pass finds most jobs unchanged).
void store_factors(job_record_t* job, const shareq_priority_parts_t& parts) {
  if (job->prio_factors == nullptr) {
    job->prio_factors = static_cast<priority_factors_t*>(xmalloc(sizeof(priority_factors_t)));
  } else if (holds_factors(*job->prio_factors, parts)) {
    return;
  }
  priority_factors_t* f = job->prio_factors;
  xfree(f->priority_tres);
  xfree(f->tres_weights);
  xfree(f->tres_names);
  shareq_fill_priority_factors(&parts, f);
}

// The share ranks (policy::rank_shares) for one running snapshot and one usage table. Both are
// immutable and replaced, never changed, when their inputs change (slurm_jobs.hpp,
// usage_store.hpp); holding them here keeps their addresses from being reused, so pointer
// identity says exactly "same inputs". priority_p_set at each submission and the periodic pass
// then rank the share x family pairs once per change instead of once per job.
struct RankedShares {
  std::shared_ptr<const ctld::RunningSnapshot> snapshot;
  std::shared_ptr<const policy::DecayedUsage> usage;
  policy::ShareRanks ranks;
};
ctld::RankedMutex g_ranks_mutex{ctld::LockRank::Ranks};
std::shared_ptr<const RankedShares> g_ranks;

std::shared_ptr<const RankedShares> ranked_shares(
    std::shared_ptr<const ctld::RunningSnapshot> snapshot,
    std::shared_ptr<const policy::DecayedUsage> usage) {
  const ctld::RankedLock lock(g_ranks_mutex);
  if (!g_ranks || g_ranks->snapshot != snapshot || g_ranks->usage != usage) {
    auto ranked = std::make_shared<RankedShares>();
    ranked->ranks = policy::rank_shares(snapshot->ledger(), *usage);
    ranked->snapshot = std::move(snapshot);
    ranked->usage = std::move(usage);
    g_ranks = std::move(ranked);
  }
  return g_ranks;
}

std::shared_ptr<const RankedShares> current_ranks(
    const std::shared_ptr<const ctld::LoadedConfig>& config) {
  return ranked_shares(ctld::running_snapshot(config), ctld::usage_store().values(*config));
}

shareq_priority_parts_t parts_of(const policy::PriorityFactors& p) {
  return shareq_priority_parts_t{true,           p.priority, p.tier,      p.share_rank,
                                 p.job_priority, p.nice,     p.size_class};
}

constexpr shareq_priority_parts_t kOutside{false, SHAREQ_OUTSIDE_PRIORITY, 0, 0, 0, 0, 0};

int64_t micros(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

// Pending jobs whose priority shareq leaves alone: held (0) or set by an administrator.
bool keeps_its_priority(const job_record_t* job) {
  return job->priority == 0 || job->direct_set_prio != 0;
}

// Writes only what changed: last_job_update moves only when a priority did (it tells backfill,
// squeue and the state save that jobs changed).
void set_priority(job_record_t* job, const shareq_priority_parts_t& parts, int64_t now) {
  const uint32_t priority = parts.governed ? std::max<uint32_t>(parts.priority, 1) : parts.priority;
  if (job->priority != priority) {
    job->priority = priority;
    last_job_update = now;
  }
  store_factors(job, parts);
}

// The job's priority in one partition: policy::partition_priority (ordering.hpp).
uint32_t partition_priority(const part_record_t* part, const policy::Policy& policy,
                            const policy::PendingJob& pending,
                            const policy::PriorityFactors& factors, uint32_t priority) {
  return policy::partition_priority(policy, part->name != nullptr ? part->name : "", pending,
                                    factors, priority);
}

#if SHAREQ_SLURM_PART_PRIO_BY_QOS
// The job's per-partition priorities as priority/multifactor keeps them in 24.11
// (_get_priority_internal): job->part_prio->priority_array, partitions x QOS, the QOS of one
// partition in a row, with the partitions' names and the time it was sized (24.11.7 renames the
// struct's field prio_mult; shareq builds against 24.11.5 exactly). Resized when the job's
// partitions or QOS changed or any partition did (last_part_update); Slurm frees the array itself
// when a job's partitions are updated. A job in one partition and one QOS has none.
void set_partition_priorities(job_record_t* job, const policy::Policy& policy,
                              const policy::PendingJob& pending,
                              const policy::PriorityFactors& factors, uint32_t priority,
                              int64_t now) {
  if (job->part_ptr_list == nullptr && job->qos_list == nullptr) {
    if (job->part_prio != nullptr) {
      xfree(job->part_prio->priority_array);
      xfree(job->part_prio->priority_array_names);
      xfree(job->part_prio);
    }
    return;
  }
  const int partitions = job->part_ptr_list != nullptr ? list_count(job->part_ptr_list) : 1;
  const int qos = job->qos_list != nullptr ? list_count(job->qos_list) : 1;
  if (partitions <= 0 || qos <= 0 || (job->part_ptr_list == nullptr && job->part_ptr == nullptr)) {
    return;
  }
  const size_t slots = static_cast<size_t>(partitions) * static_cast<size_t>(qos);
  if (job->part_prio == nullptr) {
    job->part_prio = static_cast<priority_mult_t*>(xmalloc(sizeof(priority_mult_t)));
  }
  priority_mult_t* prio = job->part_prio;
  if (prio->priority_array == nullptr || xsize(prio->priority_array) < slots * sizeof(uint32_t) ||
      prio->last_update < last_part_update) {
    xfree(prio->priority_array);
    prio->priority_array = static_cast<uint32_t*>(xcalloc(slots, sizeof(uint32_t)));
    xfree(prio->priority_array_names);
    if (job->part_ptr_list != nullptr) {
      prio->priority_array_names = part_list_to_xstr(job->part_ptr_list);
    }
    prio->last_update = now;
  }
  size_t slot = 0;
  const auto write = [&](const part_record_t* part) {
    const uint32_t value = partition_priority(part, policy, pending, factors, priority);
    for (int q = 0; q < qos && slot < slots; ++q) prio->priority_array[slot++] = value;
  };
  if (job->part_ptr_list == nullptr) {
    write(job->part_ptr);
    return;
  }
  list_itr_t* it = list_iterator_create(job->part_ptr_list);
  while (auto* part = static_cast<part_record_t*>(list_next(it))) write(part);
  list_iterator_destroy(it);
}
#else
// 22.05: job->priority_array, one per partition of part_ptr_list, in its order (no time to
// record: `now` only keeps the two versions' callers alike). Job write lock held.
void set_partition_priorities(job_record_t* job, const policy::Policy& policy,
                              const policy::PendingJob& pending,
                              const policy::PriorityFactors& factors, uint32_t priority,
                              int64_t /*now*/) {
  if (job->part_ptr_list == nullptr) return;
  const int count = list_count(job->part_ptr_list);
  if (count <= 0) return;
  // Slurm frees the array when the job's partitions change; sized by xsize() all the same, so a
  // list that grew some other way is never written past the end.
  if (job->priority_array == nullptr ||
      xsize(job->priority_array) < static_cast<size_t>(count) * sizeof(uint32_t)) {
    xfree(job->priority_array);
    job->priority_array = static_cast<uint32_t*>(xcalloc(count, sizeof(uint32_t)));
  }
  list_itr_t* it = list_iterator_create(job->part_ptr_list);
  int i = 0;
  while (auto* part = static_cast<part_record_t*>(list_next(it))) {
    if (i < count) {
      job->priority_array[i++] = partition_priority(part, policy, pending, factors, priority);
    }
  }
  list_iterator_destroy(it);
}
#endif

// What the last ranking's within-quota jobs take of each share's quota: a job submitted since is
// ranked behind them (priority_of), until the re-ranking its submission asks for.
ctld::RankedMutex g_taken_mutex{ctld::LockRank::QuotaTaken};
policy::QuotaAhead g_taken;

// A job that may start now: not held, its BeginTime passed (a requeued victim's is in the future).
bool eligible(const job_record_t* job, int64_t now) {
  return job->priority != 0 && job->details != nullptr && job->details->begin_time <= now;
}

// Step 3: failed runs settled on their pending jobs (failed_runs.hpp); every pending job's priority
// (policy::prioritize_queue over the whole queue, from the shared ranks), and each share's highest
// --share-priority among its pending jobs, held ones included (pending_priorities.hpp); then
// job_list in that order (job_list_order.hpp). Job write lock held.
void reprioritize(const std::shared_ptr<const ctld::LoadedConfig>& config, int64_t now) {
  ctld::settle_failed_runs(*config, now);
  const auto ranked = current_ranks(config);
  const policy::Ledger& ledger = ranked->snapshot->ledger();
  std::vector<int> highest(config->policy.share_count(), -1);
  std::vector<uint32_t> pending_ids;
  std::vector<job_record_t*> outside;
  std::vector<job_record_t*> records;  // queue[i]'s job
  std::vector<policy::PendingJob> queue;
  list_itr_t* it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (!IS_JOB_PENDING(job)) continue;
    if (!SHAREQ_SLURM_SELECT_REASON_KEPT) (void)ctld::restore_wait_reason(job);
    pending_ids.push_back(job->job_id);
    auto p = ctld::pending_job(*config, job, now);
    if (p && p->share < highest.size()) {
      highest[p->share] = std::max(highest[p->share], p->priority);
    }
    if (!p) {
      if (!keeps_its_priority(job)) outside.push_back(job);
      continue;
    }
    // A job whose priority an administrator set is in the queue too: it still takes its share's
    // quota when eligible.
    p->eligible = eligible(job, now);
    records.push_back(job);
    queue.push_back(std::move(*p));
  }
  list_iterator_destroy(it);
  policy::RankedQueue ranking = policy::prioritize_queue(ranked->ranks, ledger, queue);
  for (size_t i = 0; i < queue.size(); ++i) {
    if (keeps_its_priority(records[i])) continue;
    set_priority(records[i], parts_of(ranking.factors[i]), now);
    set_partition_priorities(records[i], config->policy, queue[i], ranking.factors[i],
                             records[i]->priority, now);
  }
  for (job_record_t* job : outside) set_priority(job, kOutside, now);
  {
    const ctld::RankedLock lock(g_taken_mutex);
    g_taken = std::move(ranking.taken);
  }
  ctld::publish_pending_priorities(config->version, std::move(highest));
  if (!SHAREQ_SLURM_SELECT_REASON_KEPT) ctld::wait_reasons_keep_pending(pending_ids);
  ctld::claims_keep_pending(std::move(pending_ids));
  const auto started = std::chrono::steady_clock::now();
  if (order_job_list()) {
    log_debug("priority: job_list put in scheduling order in %lld us",
              static_cast<long long>(micros(std::chrono::steady_clock::now() - started)));
  }
}

// The locks under which pending jobs are ranked: jobs written (their priorities), nodes and
// partitions read (a job's partitions, its request).
slurmctld_lock_t ranking_locks() {
  slurmctld_lock_t locks{};
  locks.job = WRITE_LOCK;
  locks.node = READ_LOCK;
  locks.part = READ_LOCK;
  return locks;
}

void pass() {
  // The one place shareq.conf's file is looked at between reconfigures: no lock held here.
  const std::shared_ptr<const ctld::LoadedConfig> config = ctld::refresh_config();
  (void)ctld::resolve_gpu_tres_pos();  // before any assoc_mgr lock is held
  const int64_t half_life = ctld::decay_half_life_s();
  ctld::UsageStore& store = ctld::usage_store();
  int64_t now = 0;
  {
    const ctld::SlurmctldLocks held(ranking_locks());
    now = time(nullptr);  // once the locks are held: accrual runs up to this moment
    const int64_t last = store.last_ran().value_or(now);
    std::vector<ctld::ReservedPool> reserved;
    if (config) {
      const auto snapshot = ctld::running_snapshot(config);
      store.accrue(*config, snapshot->running(), now, half_life, snapshot->held());
      reserved = snapshot->reserved();
    }
    accrue_associations(last, now, half_life, reserved);
    g_last_accrual.store(now);
    if (config) reprioritize(config, now);
  }
  {
    // Warm pools: expiry, nodes that went down, each warm node's Extra (node write lock).
    slurmctld_lock_t node_write_lock{};
    node_write_lock.node = WRITE_LOCK;
    const ctld::SlurmctldLocks held(node_write_lock);
    ctld::warm_periodic(now);
  }

  const std::string path = state_path();
  if (!path.empty()) {
    if (auto why = store.save(path)) log_error("priority: %s", why->c_str());
  }
}

// Step 3 alone, after jobs started or ended. Slurm runs a scheduling pass as soon as a job's
// epilog completes and orders it by these priorities: with the tiers of the last periodic pass
// (up to a period old), a borrower could start ahead of a job that the end just brought within
// its share's quota, and that job would then reclaim it at once.
void rerank() {
  const std::shared_ptr<const ctld::LoadedConfig> config = ctld::current_config();
  if (!config) return;
  (void)ctld::resolve_gpu_tres_pos();
  const ctld::SlurmctldLocks held(ranking_locks());
  reprioritize(config, time(nullptr));
}

template <typename Work>
void run_logged(const char* what, Work work) {
  try {
    work();
  } catch (const std::exception& e) {
    log_error("priority: %s failed: %s", what, e.what());
  } catch (...) {
    log_error("priority: %s failed", what);
  }
}

void on_jobs_changed() {
  {
    const ctld::RankedLock lock(g_mutex);
    g_jobs_changed = true;
  }
  g_wake.notify_all();
}

void run() {
  using Clock = std::chrono::steady_clock;
  const int64_t period_s = policy::recalc_period_s(ctld::priority_calc_period_s());
  const auto period = std::chrono::seconds(period_s);
  log_info("priority: recalculating every %lld s and after jobs start or end",
           static_cast<long long>(period_s));
  Clock::time_point next_pass = Clock::now();
  Clock::time_point next_rerank = next_pass;
  std::unique_lock<ctld::RankedMutex> lock(g_mutex);
  while (!g_stop) {
    const Clock::time_point now = Clock::now();
    const bool whole = g_poke || now >= next_pass;
    if (!whole && !(g_jobs_changed && now >= next_rerank)) {
      g_wake.wait_until(lock, g_jobs_changed ? std::min(next_pass, next_rerank) : next_pass);
      continue;
    }
    g_poke = false;
    g_jobs_changed = false;
    lock.unlock();
    const Clock::time_point started = Clock::now();
    if (whole) {
      run_logged("recalculation", pass);
    } else {
      run_logged("re-ranking", rerank);
    }
    const Clock::time_point finished = Clock::now();
    if (whole) {
      next_pass = finished + period;
    } else {
      next_rerank = finished + (kRerankDuty - 1) * (finished - started);
      log_debug("priority: pending jobs re-ranked after a job change in %lld us",
                static_cast<long long>(micros(finished - started)));
    }
    lock.lock();
  }
}

}  // namespace

uint32_t priority_of(job_record_t* job) {
  const auto config = ctld::current_config();
  std::optional<policy::PendingJob> pending;
  const int64_t now = time(nullptr);  // the one clock read of priority_p_set
  if (config) pending = ctld::pending_job(*config, job, now);
  if (pending) ctld::pending_priority_seen(config->version, pending->share, pending->priority);
  if (job->direct_set_prio != 0 && job->priority > 0) return job->priority;
  if (!pending) {
    store_factors(job, kOutside);
    return SHAREQ_OUTSIDE_PRIORITY;
  }
  const auto ranked = current_ranks(config);
  policy::PriorityFactors f;
  {
    const ctld::RankedLock lock(g_taken_mutex);
    f = policy::prioritize(ranked->ranks, ranked->snapshot->ledger(), *pending, g_taken);
  }
  store_factors(job, parts_of(f));
  const uint32_t priority = std::max<uint32_t>(f.priority, 1);
  set_partition_priorities(job, config->policy, *pending, f, priority, now);
  // Behind every ranked job of its share for now: the re-ranking puts it in its place.
  on_jobs_changed();
  return priority;
}

bool start_recalc() {
  // Taking over (again, with a backup controller): read what the files hold now, not what a
  // call served after this controller last handed control back read then (see stop_recalc).
  ctld::warm_unload();
  ctld::claims_unload();
  const std::string path = state_path();
  if (!path.empty()) {
    std::error_code missing;
    const bool saved_before = std::filesystem::exists(path, missing);
    if (auto why = ctld::usage_store().load(path)) {
      // No file is a first start; a file that cannot be used is damage an admin should see.
      if (saved_before) {
        log_error("priority: %s; usage starts from zero", why->c_str());
      } else {
        log_info("priority: no usage state yet (%s); starting from zero", why->c_str());
      }
    } else {
      log_info("priority: usage state read from %s", path.c_str());
    }
  }
  const ctld::RankedLock lock(g_mutex);
  g_stop = false;
  g_thread = std::thread(run);
  ctld::set_jobs_changed_listener(on_jobs_changed);
  return true;
}

void stop_recalc() {
  ctld::set_jobs_changed_listener(nullptr);
  {
    const ctld::RankedLock lock(g_mutex);
    g_stop = true;
  }
  g_wake.notify_all();
  if (g_thread.joinable()) {
    g_thread.join();
    const std::string path = state_path();
    if (!path.empty()) {
      if (auto why = ctld::usage_store().save(path)) log_error("priority: %s", why->c_str());
    }
  }
  // Warm pools and reclaims in flight are written off the locks: on disk now, and read again at
  // their next use. With a backup controller slurmctld calls fini when it hands control back to
  // another controller and init when it takes over again, in the same process; what the other
  // controller saved meanwhile is what counts then.
  ctld::warm_unload();
  ctld::claims_unload();
}

void wake_recalc() {
  {
    const ctld::RankedLock lock(g_mutex);
    g_poke = true;
  }
  g_wake.notify_all();
  log_debug("priority: recalculation requested");
}

int64_t last_accrual() { return g_last_accrual.load(); }

}  // namespace shareq::priority
