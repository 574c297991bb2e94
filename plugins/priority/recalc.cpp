#include "recalc.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "assoc_usage.hpp"
#include "config_state.hpp"
#include "log.hpp"
#include "policy/ordering.hpp"
#include "slurm_conf_access.hpp"
#include "slurm_jobs.hpp"
#include "slurmctld_headers.hpp"
#include "sprio_factors.h"
#include "usage_store.hpp"

namespace shareq::priority {
namespace {

using ctld::log_debug;
using ctld::log_error;
using ctld::log_info;

constexpr int64_t kDefaultPeriod = 5;
constexpr const char* kStateFile = "/shareq_usage";

std::mutex g_mutex;  // guards the flags below; never held while taking Slurm's locks
std::condition_variable g_wake;
bool g_stop = false;
bool g_poke = false;
std::thread g_thread;
std::atomic<int64_t> g_last_accrual{0};

std::string state_path() {
  const std::string dir = ctld::state_save_location();
  return dir.empty() ? std::string() : dir + kStateFile;
}

// Stores the factors behind `priority` for sprio.
void store_factors(job_record_t* job, const shareq_priority_parts_t& parts) {
  if (job->prio_factors == nullptr) {
    job->prio_factors =
        static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  }
  priority_factors_object_t* f = job->prio_factors;
  xfree(f->priority_tres);
  xfree(f->tres_weights);
  xfree(f->tres_names);
  shareq_fill_priority_factors(&parts, f);
}

shareq_priority_parts_t parts_of(const policy::PriorityFactors& p) {
  return shareq_priority_parts_t{true, p.priority, p.tier, p.share_rank, p.job_priority};
}

constexpr shareq_priority_parts_t kOutside{false, SHAREQ_OUTSIDE_PRIORITY, 0, 0, 0};

// Jobs whose priority shareq leaves alone.
bool keeps_its_priority(const job_record_t* job) {
  return job->priority == 0 || job->direct_set_prio != 0 || !IS_JOB_PENDING(job);
}

void set_priority(job_record_t* job, const shareq_priority_parts_t& parts, int64_t now) {
  const uint32_t priority = parts.governed ? std::max<uint32_t>(parts.priority, 1) : parts.priority;
  if (job->priority != priority) {
    job->priority = priority;
    last_job_update = now;
  }
  store_factors(job, parts);
}

// Step 3: every pending job's priority. Job write lock held.
void reprioritize(const std::shared_ptr<const ctld::LoadedConfig>& config, int64_t now) {
  const auto snapshot = ctld::running_snapshot(config);
  const auto usage = ctld::usage_store().values(*config);
  std::vector<policy::PendingJob> pending;
  std::vector<job_record_t*> records;
  ListIterator it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (keeps_its_priority(job)) continue;
    if (auto p = ctld::pending_job(*config, job)) {
      pending.push_back(std::move(*p));
      records.push_back(job);
    } else {
      set_priority(job, kOutside, now);
    }
  }
  list_iterator_destroy(it);
  const std::vector<policy::PriorityFactors> factors =
      policy::prioritize(snapshot->ledger(), *usage, pending);
  for (size_t i = 0; i < records.size(); ++i) set_priority(records[i], parts_of(factors[i]), now);
}

void pass() {
  const std::shared_ptr<const ctld::LoadedConfig> config = ctld::current_config();
  (void)ctld::gpu_tres_pos();  // resolve before any assoc_mgr lock is held
  const int64_t half_life = ctld::decay_half_life_s();
  slurmctld_lock_t job_write_lock{};
  job_write_lock.job = WRITE_LOCK;
  job_write_lock.node = READ_LOCK;
  job_write_lock.part = READ_LOCK;
  lock_slurmctld(job_write_lock);
  const int64_t now = time(nullptr);
  ctld::UsageStore& store = ctld::usage_store();
  const int64_t last = store.last_ran().value_or(now);
  if (config) {
    store.accrue(*config, ctld::running_snapshot(config)->running(), now, half_life);
  }
  accrue_associations(last, now, half_life);
  g_last_accrual.store(now);
  if (config) reprioritize(config, now);
  unlock_slurmctld(job_write_lock);

  const std::string path = state_path();
  if (!path.empty()) {
    if (auto why = store.save(path)) log_error("priority: %s", why->c_str());
  }
}

void run() {
  const int64_t period = recalc_period_s(ctld::priority_calc_period_s());
  log_info("priority: recalculating every %lld s", static_cast<long long>(period));
  std::unique_lock<std::mutex> lock(g_mutex);
  while (!g_stop) {
    lock.unlock();
    try {
      pass();
    } catch (const std::exception& e) {
      log_error("priority: recalculation failed: %s", e.what());
    } catch (...) {
      log_error("priority: recalculation failed");
    }
    lock.lock();
    g_wake.wait_for(lock, std::chrono::seconds(period), [] { return g_stop || g_poke; });
    g_poke = false;
  }
}

}  // namespace

int64_t recalc_period_s(int64_t calc_period_s) {
  return (calc_period_s >= 1 && calc_period_s <= kDefaultPeriod) ? calc_period_s : kDefaultPeriod;
}

uint32_t priority_of(job_record_t* job) {
  if (job->direct_set_prio != 0 && job->priority > 0) return job->priority;
  const auto config = ctld::current_config();
  std::optional<policy::PendingJob> pending;
  if (config) pending = ctld::pending_job(*config, job);
  if (!pending) {
    store_factors(job, kOutside);
    return SHAREQ_OUTSIDE_PRIORITY;
  }
  const auto snapshot = ctld::running_snapshot(config);
  const auto usage = ctld::usage_store().values(*config);
  const policy::PriorityFactors f = policy::prioritize_one(snapshot->ledger(), *usage, *pending);
  store_factors(job, parts_of(f));
  return std::max<uint32_t>(f.priority, 1);
}

bool start_recalc() {
  const std::string path = state_path();
  if (!path.empty()) {
    if (auto why = ctld::usage_store().load(path)) {
      log_info("priority: no usable usage state (%s); starting from zero", why->c_str());
    } else {
      log_info("priority: usage state read from %s", path.c_str());
    }
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_stop = false;
  g_thread = std::thread(run);
  return true;
}

void stop_recalc() {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
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
}

void wake_recalc() {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_poke = true;
  }
  g_wake.notify_all();
  log_debug("priority: recalculation requested");
}

int64_t last_accrual() { return g_last_accrual.load(); }

}  // namespace shareq::priority
