// preempt/shareq: which running jobs a pending job may preempt, from the core's rules
// (policy/victims.hpp): reclaim of borrowed capacity, then in-share priority preemption.
//
// Slurm 22.05 looks up preempt_p_job_preempt_check, preempt_p_preemptable and
// preempt_p_get_data (syms[] in src/slurmctld/preempt.c). All three run in slurmctld with the job
// write lock held by the caller (scheduler, backfill, job submission), except get_data(ENABLED),
// which may come with no job and no lock: it reads only shareq's own registries, never job_list.
//
// Slurm's candidate list is built from preempt_p_preemptable() and sorted by get_data(PRIO),
// lower first; select/shareq then hands cons_tres exactly pick_victims()'s victims, in order.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>

#include "boundary.hpp"
#include "config_state.hpp"
#include "log.hpp"
#include "pending_priorities.hpp"
#include "policy/victims.hpp"
#include "reclaim_claims.hpp"
#include "slurm_jobs.hpp"
#include "slurmctld_headers.hpp"

extern "C" {
#include "src/slurmctld/job_scheduler.h"
#if __has_include("src/interfaces/preempt.h")
#include "src/interfaces/preempt.h"  // 23.02+
#else
#include "src/slurmctld/preempt.h"
#endif
}

SHAREQ_EXPORT const char plugin_name[] = "shareq preemption plugin";
SHAREQ_EXPORT const char plugin_type[] = "preempt/shareq";
SHAREQ_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

SHAREQ_EXPORT int init(void);
SHAREQ_EXPORT void fini(void);
SHAREQ_EXPORT bool preempt_p_job_preempt_check(job_queue_rec_t* preemptor,
                                               job_queue_rec_t* preemptee);
SHAREQ_EXPORT bool preempt_p_preemptable(job_record_t* preemptee, job_record_t* preemptor);
SHAREQ_EXPORT int preempt_p_get_data(job_record_t* job_ptr, slurm_preempt_data_type_t data_type,
                                     void* data);

namespace {

using shareq::ctld::log_error;
using shareq::plugin::guarded;
namespace policy = shareq::policy;

void report(const char* where, const char* what) { log_error("preempt: %s: %s", where, what); }

// The two jobs of preempt_p_preemptable as distinct types: Slurm's ops typedef names them
// (preemptor, preemptee) but calls them (preemptee, preemptor).
struct Preemptor {
  job_record_t* job;
};
struct Preemptee {
  job_record_t* job;
};

// get_data(PRIO) keys: victims in pick_victims's order first (1, 2, ...), then every other
// eligible candidate.
constexpr uint32_t kNotAVictim = 1U << 30;

// The victim order of the preemptor last asked about, for get_data(PRIO), which Slurm calls
// right after preemptable() for the same preemptor.
struct VictimOrder {
  uint32_t preemptor = 0;
  uint64_t generation = 0;
  uint64_t config_version = 0;
  std::unordered_map<uint32_t, uint32_t> rank;  // job id -> 1..n
};
shareq::ctld::RankedMutex g_order_mutex{shareq::ctld::LockRank::VictimOrder};
VictimOrder g_order;

struct Request {
  std::shared_ptr<const shareq::ctld::LoadedConfig> config;
  std::shared_ptr<const shareq::ctld::RunningSnapshot> snapshot;
  policy::PendingJob job;
  policy::FamilyId family = 0;
  int64_t amount = 0;
};

// The preemptor as the policy sees it in the partition Slurm is trying now.
std::optional<Request> request_of(Preemptor p, time_t now) {
  if (p.job == nullptr || p.job->part_ptr == nullptr) return std::nullopt;
  Request r;
  r.config = shareq::ctld::current_config();
  if (!r.config) return std::nullopt;
  const auto family = r.config->policy.family_of_partition(p.job->part_ptr->name);
  if (!family) return std::nullopt;
  auto job = shareq::ctld::pending_job(*r.config, p.job, now);
  if (!job) return std::nullopt;
  const auto it = std::find_if(job->requests.begin(), job->requests.end(),
                               [&](const policy::FamilyRequest& q) { return q.family == *family; });
  if (it == job->requests.end()) return std::nullopt;
  r.family = *family;
  r.amount = it->amount;
  r.job = std::move(*job);
  r.snapshot = shareq::ctld::decision_snapshot(r.config, now);
  return r;
}

void remember_order(const Request& r, time_t now) {
  const shareq::ctld::RankedLock lock(g_order_mutex);
  if (g_order.preemptor == r.job.id && g_order.generation == r.snapshot->generation() &&
      g_order.config_version == r.config->version) {
    return;
  }
  const policy::VictimChoice choice = policy::pick_victims(r.snapshot->ledger(), r.job, r.family,
                                                           r.amount, r.snapshot->running(), now);
  g_order = VictimOrder{r.job.id, r.snapshot->generation(), r.config->version, {}};
  uint32_t rank = 0;
  for (const policy::Victim& v : choice.victims) g_order.rank.emplace(v.id, ++rank);
}

// Slurm asks about every job in job_list (slurm_find_preemptable_jobs: the thousands of pending
// jobs too, once per preemptor, i.e. for every job the scheduler, backfill or a submission
// tests) and only then keeps the running or suspended ones (job_overlap_and_running). A job that
// is neither is never a candidate, whatever the answer: say no before translating the preemptor.
bool never_a_candidate(const job_record_t* job) {
  return !IS_JOB_RUNNING(job) && !IS_JOB_SUSPENDED(job);
}

// What preemptable() works out about one preemptor: the same for every job of Slurm's scan over
// job_list, so it is worked out once per scan, not once per running job (thousands, on a large
// cluster), and kept while nothing it depends on changes: the same job and partition, the same
// second, no change of jobs (slurmctld's last_job_update, shareq's running registry), claims or
// configuration. Should an update change the job within that second, the candidates of one pass
// may be stale; select/shareq decides afresh from the job record and hands cons_tres only its
// own victims that are also candidates, so a stale list can delay a preemption, never widen it.
//
// What the cached state depends on: every field takes part in the comparison (defaulted), so a
// field added here can never be forgotten there.
struct PreemptorKey {
  const job_record_t* job = nullptr;
  uint32_t job_id = 0;
  const part_record_t* partition = nullptr;
  time_t now = 0;
  time_t last_job_update = 0;
  uint64_t jobs_generation = 0;
  uint64_t claims_version = 0;
  uint64_t config_version = 0;
  bool operator==(const PreemptorKey&) const = default;
};

struct PreemptorState {
  PreemptorKey key;
  bool in_flight = false;          // its victims are still ending: it preempts nothing more
  std::optional<Request> request;  // nullopt: not a job shareq decides for
};
shareq::ctld::RankedMutex g_preemptor_mutex{shareq::ctld::LockRank::PreemptorCache};
PreemptorState g_preemptor;

PreemptorKey key_of(const job_record_t* job, time_t now, uint64_t config_version) {
  return PreemptorKey{job,
                      job->job_id,
                      job->part_ptr,
                      now,
                      last_job_update,
                      shareq::ctld::jobs_generation(),
                      shareq::ctld::claims_version(),
                      config_version};
}

// The preemptor's state, from the cache when still valid. g_preemptor_mutex held.
const PreemptorState& preemptor_state_locked(Preemptor p, time_t now) {
  const auto config = shareq::ctld::current_config();
  const PreemptorKey key = key_of(p.job, now, config ? config->version : 0);
  if (g_preemptor.key == key) return g_preemptor;
  g_preemptor = PreemptorState{key, shareq::ctld::reclaim_in_flight(p.job->job_id, now), {}};
  if (!g_preemptor.in_flight) g_preemptor.request = request_of(p, now);
  return g_preemptor;
}

bool preemptable(Preemptor preemptor, Preemptee preemptee) {
  if (preemptee.job == nullptr || never_a_candidate(preemptee.job)) return false;
  if (preemptor.job == nullptr) return false;
  const time_t now = time(nullptr);
  const shareq::ctld::RankedLock lock(g_preemptor_mutex);
  const PreemptorState& state = preemptor_state_locked(preemptor, now);
  // A job whose victims are still ending preempts nothing more (reclaim_claims.hpp).
  if (state.in_flight || !state.request) return false;
  const Request& r = *state.request;
  const policy::RunningJob* candidate = r.snapshot->find(preemptee.job->job_id);
  if (candidate == nullptr) return false;
  if (!policy::may_preempt(r.snapshot->ledger(), r.job, r.family, r.amount, *candidate, now)) {
    return false;
  }
  remember_order(r, now);  // takes g_order_mutex: always after g_preemptor_mutex
  return true;
}

uint32_t sort_key(const job_record_t* job) {
  if (job == nullptr) return kNotAVictim;
  const shareq::ctld::RankedLock lock(g_order_mutex);
  const auto it = g_order.rank.find(job->job_id);
  return it != g_order.rank.end() ? it->second : kNotAVictim;
}

uint32_t grace_time() {
  const auto config = shareq::ctld::current_config();
  if (!config || config->policy.preempt_grace_time_s <= 0) return 0;
  return static_cast<uint32_t>(std::min<int64_t>(config->policy.preempt_grace_time_s, UINT32_MAX));
}

// The last answer to get_data(ENABLED) written to the log: -1 none (or not logging), else 0/1.
std::atomic<int> g_last_logged{-1};

// Logs the answer when it changes, at verbose level; raising the level (`scontrol setdebug
// verbose`) logs the current one at the next question.
void log_if_changed(bool enabled) {
  if (slurm_conf.slurmctld_debug < LOG_LEVEL_VERBOSE) {
    g_last_logged.store(-1);
    return;
  }
  if (g_last_logged.exchange(enabled ? 1 : 0) == (enabled ? 1 : 0)) return;
  shareq::ctld::log_verbose(
      enabled ? "preempt: a running job may be preempted: Slurm looks for candidates"
              : "preempt: no running job can be preempted (no share borrows a job's worth, no "
                "pending job is above a running one of its share): Slurm skips its search for "
                "candidates");
}

// Slurm asks, with no job, whether anything can be preempted (slurm_preemption_enabled) before
// every search for candidates (slurm_find_preemptable_jobs walks all of job_list, for each job
// the main scheduler or backfill tests) and when it picks nodes (_pick_best_nodes: when false, a
// job is offered only nodes it could share, or idle ones). shareq says no while no running job
// could be a victim of a pending job (policy::any_preemptable): no share borrows a job's worth,
// and no share has a pending job above its lowest running one (or in-share preemption is off).
// Slurm then skips both, which is right, and no longer walks job_list per job it tests. The
// answer comes from the same snapshot (claims applied) that preempt_p_preemptable and
// select/shareq decide from; the pending side is pending_priorities.hpp's.
bool preemption_possible() {
  if (slurm_conf.preempt_mode == PREEMPT_MODE_OFF) return false;
  const auto config = shareq::ctld::current_config();
  // No configuration: shareq governs no job, and preempt_p_preemptable says no to every one.
  bool enabled = false;
  if (config) {
    const auto snapshot = shareq::ctld::decision_snapshot(config, time(nullptr));
    const auto pending = shareq::ctld::pending_priorities(config->version);
    enabled = policy::any_preemptable(
        snapshot->exposure(), pending ? std::span<const int>(*pending) : std::span<const int>());
  }
  log_if_changed(enabled);
  return enabled;
}

int get_data(job_record_t* job, slurm_preempt_data_type_t type, void* data) {
  switch (type) {
    case PREEMPT_DATA_ENABLED:
      *static_cast<bool*>(data) = preemption_possible();
      return SLURM_SUCCESS;
    case PREEMPT_DATA_MODE:
      // Victims are requeued: they keep their share and priority and run again later.
      *static_cast<uint16_t*>(data) = PREEMPT_MODE_REQUEUE;
      return SLURM_SUCCESS;
    case PREEMPT_DATA_PRIO:
      *static_cast<uint32_t*>(data) = sort_key(job);
      return SLURM_SUCCESS;
    case PREEMPT_DATA_GRACE_TIME:
      *static_cast<uint32_t*>(data) = grace_time();
      return SLURM_SUCCESS;
  }
  log_error("preempt: get_data: unknown data type %d", static_cast<int>(type));
  return SLURM_ERROR;
}

}  // namespace

extern "C" int init(void) {
  shareq::ctld::log_verbose("preempt: loaded");
  return SLURM_SUCCESS;
}

extern "C" void fini(void) {}

// Orders the pending queue (sort_job_queue2): one pending job "may preempt" another. shareq's
// priorities already are the order, so this never overrides it.
extern "C" bool preempt_p_job_preempt_check(job_queue_rec_t* preemptor,
                                            job_queue_rec_t* preemptee) {
  (void)preemptor;
  (void)preemptee;
  return false;
}

extern "C" bool preempt_p_preemptable(job_record_t* preemptee, job_record_t* preemptor) {
  return guarded(
      false, [&] { return preemptable(Preemptor{preemptor}, Preemptee{preemptee}); },
      [](const char* what) { report("preemptable", what); });
}

extern "C" int preempt_p_get_data(job_record_t* job_ptr, slurm_preempt_data_type_t data_type,
                                  void* data) {
  return guarded(
      SLURM_ERROR, [&] { return get_data(job_ptr, data_type, data); },
      [](const char* what) { report("get_data", what); });
}
