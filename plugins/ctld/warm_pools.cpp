#include "warm_pools.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <map>
#include <optional>

#include "config_state.hpp"
#include "controller_state.hpp"
#include "job_comments.hpp"
#include "job_nodes.hpp"
#include "log.hpp"
#include "policy/run_words.hpp"
#include "slurm_conf_access.hpp"
#include "slurmctld_headers.hpp"
#include "state_file.hpp"
#include "state_writer.hpp"
#include "submit_shim.h"
#include "text.hpp"
#include "warm/extra_format.hpp"
#include "warm/notice.hpp"
#include "warm/registry.hpp"
#include "warm/state_format.hpp"

namespace shareq::ctld {
namespace {

constexpr const char* kStateFile = "shareq_warm_pools";

// The registry and what goes with it (controller_state.hpp). part().waiting is read without the
// mutex by the select hook's fast path; -1 until the registry is loaded (then the slow path
// loads it).
WarmPoolsPart& part() { return controller_state().warm; }

void publish_locked(const warm::WarmPoolRegistry& reg, int64_t now);

std::string state_path() { return state_file_path(kStateFile); }

// On the state writer's thread: this runs under slurmctld's locks.
void save_locked() {
  const std::string path = state_path();
  const auto& registry = part().registry;
  if (path.empty() || !registry) return;
  save_state_later(path, warm::format_registry(*registry), Durability::MachineCrash, "warm");
}

// The registry with the current settings; loaded from the state file on first use.
warm::WarmPoolRegistry* registry_locked() {
  WarmPoolsPart& w = part();
  const auto config = current_config();
  if (!config) return w.registry ? &*w.registry : nullptr;
  const warm::WarmSettings settings = warm::WarmSettings::from_config(config->config());
  if (!w.registry) {
    const std::string path = state_path();
    if (const std::optional<std::string> text = read_state_file(path)) {
      auto parsed = warm::parse_registry(*text, settings);
      if (parsed) {
        w.registry.emplace(std::move(parsed).value());
        log_info("warm: restored %zu warm pool(s) from %s", w.registry->pools().size(),
                 path.c_str());
      } else {
        log_error("warm: %s: %s; starting with no warm pools", path.c_str(),
                  parsed.error().to_string().c_str());
      }
    }
    if (!w.registry) w.registry.emplace(settings);
    w.config_version = config->version;
    publish_locked(*w.registry, time(nullptr));
  } else if (w.config_version != config->version) {
    w.registry->set_settings(settings);
    w.config_version = config->version;
    publish_locked(*w.registry, time(nullptr));  // WarmPoolMode may have changed
  }
  return &*w.registry;
}

std::string env_value(job_record_t* job, const char* name) {
  const char* v = shareq_env_get(job->spank_job_env, job->spank_job_env_size, name);
  return v != nullptr ? v : "";
}

// The user's name from the job's association (in slurmctld's memory: no passwd or NSS lookup,
// which could block under slurmctld's locks), else the uid. job->user_name is not used: Slurm
// sets it only when the job starts, and the key must be the same at placement and at job end.
std::string user_of(job_record_t* job) {
  const slurmdb_assoc_rec_t* assoc = job->assoc_ptr;
  if (assoc != nullptr && assoc->user != nullptr && assoc->user[0] != '\0') return assoc->user;
  return std::to_string(job->user_id);
}

int64_t keep_alive_of(job_record_t* job) {
  const std::string v = env_value(job, "SHAREQ_KEEP_ALIVE");
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  return (!v.empty() && end != nullptr && *end == '\0' && n > 0) ? n : 0;
}

warm::JobToStart pending_of(job_record_t* job, std::vector<std::string> partitions,
                            uint32_t node_count) {
  warm::JobToStart p;
  p.id = job->job_id;
  p.user = user_of(job);
  p.uid = job->user_id;
  p.account = to_lower(job->account != nullptr ? job->account : "");
  p.partitions = std::move(partitions);
  p.image_digest = env_value(job, "SHAREQ_IMAGE_DIGEST");
  p.node_count = node_count;
  return p;
}

std::vector<std::string> pending_partitions(job_record_t* job) {
  std::vector<std::string> parts;
  if (job->part_ptr_list != nullptr) {
    list_itr_t* it = list_iterator_create(job->part_ptr_list);
    while (auto* part = static_cast<part_record_t*>(list_next(it))) parts.emplace_back(part->name);
    list_iterator_destroy(it);
  } else if (job->part_ptr != nullptr) {
    parts.emplace_back(job->part_ptr->name);
  }
  return parts;
}

std::string iso_time(int64_t t) {
  char buf[32];
  const time_t tt = t;
  struct tm tm {};
  localtime_r(&tt, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

// The local zone's UTC offset at `at` (localtime_r, as iso_time: the zone is read once, at the
// first call, and cached by the C library).
int64_t utc_offset_at(int64_t at) {
  const time_t tt = at;
  struct tm tm {};
  localtime_r(&tt, &tm);
  return tm.tm_gmtoff;
}

// Tells the job's owner by mail that the job left its nodes warm as `pool` (--mail-type END or
// ALL): its nodes, its expiry and what a matching job must share (warm/notice.hpp).
//
// How: Slurm 22.05 runs MailProg as `MailProg -s SUBJECT USER`, with no body, and
// mail_job_info() writes the subject itself ("Slurm Job_id=N Name=NAME Ended, Run time ...");
// a plugin cannot add a body or its own subject. mail_job_info() only queues the mail (under
// agent.c's mail_mutex); slurmctld's agent thread later runs MailProg through slurmscriptd in a
// thread of its own, outside every lock, as for Slurm's own mails. So the notice is a second
// mail through that same queue, for a copy of the job record whose name is the notice: its
// subject reads "Slurm Job_id=42 Name=shareq: job 42 left its nodes warm as wp-3: ... Ended,
// Run time ...". Nothing runs and nothing is written here, but mail_job_info() builds MailProg's
// environment now and looks up the user's and group's names (NSS, perhaps LDAP, as for Slurm's
// own end mail, under the same Slurm locks): never called with a shareq lock held. The copy's
// SPANK environment also carries SHAREQ_WARM_POOL, SHAREQ_WARM_NODES and SHAREQ_WARM_UNTIL
// (epoch seconds), which MailProg receives as SPANK_SHAREQ_WARM_*: a site's MailProg can tell the
// notice apart.
void mail_pool_notice(job_record_t* job, const warm::WarmPool& pool, int64_t now) {
  if ((job->mail_type & MAIL_JOB_END) == 0 || job->mail_user == nullptr) return;
  std::string notice = warm::pool_notice(pool, job->job_id, env_value(job, "SHAREQ_IMAGE"), now,
                                         utc_offset_at(pool.expires_at));
  std::vector<std::string> added = {"SHAREQ_WARM_POOL=" + pool.name(),
                                    "SHAREQ_WARM_NODES=" + text::join(pool.nodes, ","),
                                    "SHAREQ_WARM_UNTIL=" + std::to_string(pool.expires_at)};
  std::vector<char*> env;
  for (uint32_t i = 0; i < job->spank_job_env_size; ++i) env.push_back(job->spank_job_env[i]);
  for (std::string& entry : added) env.push_back(entry.data());
  env.push_back(nullptr);
  job_record_t copy = *job;  // read only by mail_job_info(); it frees nothing of it
  copy.name = notice.data();
  copy.spank_job_env = env.data();
  copy.spank_job_env_size = static_cast<uint32_t>(env.size() - 1);
  // An array task's mail would otherwise be written for the array's record, with its name.
  copy.mail_type |= MAIL_ARRAY_TASKS;
  mail_job_info(&copy, MAIL_JOB_END);
  log_info("warm: JobId=%u: mailed the notice of %s to %s", job->job_id, pool.name().c_str(),
           job->mail_user);
}

// "shareq-start:warm,at:T": how this run (the one that starts at T) started, for the exporter's
// shareq_warm_starts_total (slurmdbd keeps it with the run; earlier runs' words name their own T).
std::string start_word(const char* how, const job_record_t* job) {
  return policy::start_word(how, job->start_time);
}

void log_ended(const std::vector<warm::WarmPool>& ended) {
  for (const warm::WarmPool& pool : ended) log_info("warm: %s", warm::describe(pool).c_str());
}

// The starting job's prolog removes the warm directories on its nodes of pools that ended
// before their deadline (the registry keeps them, in its state file too, so a restart of
// slurmctld loses none). True when there were some.
bool pass_ended_early(job_record_t* job, warm::WarmPoolRegistry& reg,
                      const std::vector<std::string>& nodes, int64_t now) {
  const std::string list = text::join(reg.take_ended_early(nodes, now), ",");
  if (list.empty()) {
    shareq_env_unset(&job->spank_job_env, &job->spank_job_env_size, "SHAREQ_WARM_ENDED");
    return false;
  }
  shareq_env_set(&job->spank_job_env, &job->spank_job_env_size, "SHAREQ_WARM_ENDED", list.c_str());
  return true;
}

warm::EndCause end_cause(job_record_t* job) {
  const uint32_t base = job->job_state & JOB_STATE_BASE;
  if (IS_JOB_PENDING(job) || (job->job_state & JOB_REQUEUE)) return warm::EndCause::Preempted;
  switch (base) {
    case JOB_COMPLETE:
      return warm::EndCause::Completed;
    case JOB_FAILED:
    case JOB_OOM:
      return warm::EndCause::Failed;
    case JOB_TIMEOUT:
    case JOB_DEADLINE:
      return warm::EndCause::TimeLimit;
    case JOB_NODE_FAIL:
    case JOB_BOOT_FAIL:
      return warm::EndCause::NodeFail;
    case JOB_PREEMPTED:
      return warm::EndCause::Preempted;
    case JOB_CANCELLED:
      return job->requid == job->user_id ? warm::EndCause::UserCancel : warm::EndCause::AdminCancel;
    default:
      return warm::EndCause::AdminCancel;
  }
}

// The configured GPUs of the named nodes together (gres/gpu in each node's TRES counts).
uint64_t gpus_of(const std::vector<std::string>& nodes) {
  const int pos = gpu_tres_pos();
  if (pos < 0) return 0;
  uint64_t gpus = 0;
  for (const std::string& name : nodes) {
    node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
    if (node != nullptr && node->tres_cnt != nullptr) gpus += node->tres_cnt[pos];
  }
  return gpus;
}

ReservedPool reserved_of(const warm::WarmPool& pool, int64_t since) {
  ReservedPool r;
  r.pool = pool.id;
  r.account = pool.account;
  r.uid = pool.uid;
  r.partition = pool.partition;
  r.nodes = pool.nodes;
  r.gpus = gpus_of(pool.nodes);
  r.since = since;
  return r;
}

// After every change of the registry: counts the waiting pools for warm_pools_waiting(), and
// tells slurm_jobs.hpp which pools now hold their nodes for their owner (reserve mode only), so
// that the next Ledger counts them; remembers when each began to wait, for fair-share accrual.
void publish_locked(const warm::WarmPoolRegistry& reg, int64_t now) {
  part().waiting.store(std::count_if(reg.pools().begin(), reg.pools().end(),
                                     [](const auto& p) { return p.second.waiting(); }),
                       std::memory_order_release);
  std::vector<ReservedPool> reserved;
  std::map<warm::PoolId, int64_t> since;
  for (const warm::WarmPool* pool : reg.reserved(now)) {
    const auto known = part().reserved_since.find(pool->id);
    since[pool->id] = known != part().reserved_since.end() ? known->second : now;
    reserved.push_back(reserved_of(*pool, since[pool->id]));
  }
  part().reserved_since = std::move(since);
  set_reserved_pools(std::move(reserved));
}

}  // namespace

bool warm_pools_waiting() {
  const int64_t known = part().waiting.load(std::memory_order_acquire);
  if (known >= 0) return known > 0;
  const RankedLock lock(part().mutex);
  (void)registry_locked();  // loads the state file and publishes the count
  return part().waiting.load(std::memory_order_acquire) > 0;
}

std::optional<ReservedPool> warm_reserved_claim(job_record_t* job, int64_t now) {
  if (!warm_pools_waiting()) return std::nullopt;  // no mutex while there is no pool
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr || reg->pools().empty() || reg->settings().mode != WarmPoolMode::Reserve) {
    return std::nullopt;
  }
  const uint32_t nodes = job->details != nullptr ? job->details->min_nodes : 1;
  const warm::JobToStart pending = pending_of(job, pending_partitions(job), std::max(nodes, 1U));
  const warm::WarmPool* pool = reg->match(pending, now);
  if (pool == nullptr) return std::nullopt;
  const auto known = part().reserved_since.find(pool->id);
  return reserved_of(*pool, known != part().reserved_since.end() ? known->second : now);
}

warm::NodeAdvice warm_advice(job_record_t* job, const std::vector<std::string>& candidates,
                             int64_t now) {
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr || reg->pools().empty()) return {};
  uint32_t nodes = job->details != nullptr ? job->details->min_nodes : 1;
  const warm::JobToStart pending = pending_of(job, pending_partitions(job), std::max(nodes, 1U));
  return warm::advise_placement(*reg, pending, candidates, now);
}

void warm_job_started(job_record_t* job, int64_t now) {
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr) return;
  const std::vector<std::string> nodes = nodes_of_job(job);
  if (nodes.empty()) return;
  std::vector<std::string> partition;
  if (job->part_ptr != nullptr) partition.emplace_back(job->part_ptr->name);
  const warm::JobToStart pending = pending_of(job, partition, static_cast<uint32_t>(nodes.size()));
  std::string warm_name;
  bool changed = false;
  const warm::WarmPool* match = reg->match(pending, now, &nodes);
  if (match != nullptr && match->nodes == nodes) {
    auto claimed = reg->claim(match->id, pending, now);
    if (claimed) {
      const warm::WarmPool& pool = claimed.value();
      warm_name = warm::node_warm_name(pool.origin_job);
      set_system_comment(job, "shareq: warm start on " + pool.name() + " (origin job " +
                                  std::to_string(pool.origin_job) + ", key " +
                                  pool.key.to_string() + ")");
      append_admin_word(job, "shareq-warm-start:" + pool.name());
      append_admin_word(job, start_word("warm", job));
      log_info("warm: JobId=%u starts warm on %s", job->job_id, pool.name().c_str());
      changed = true;
    }
  }
  if (warm_name.empty()) {
    const auto taken = reg->on_nodes_taken(job->job_id, nodes);
    log_ended(taken);
    changed = changed || !taken.empty();
    if (keep_alive_of(job) > 0) warm_name = warm::node_warm_name(job->job_id);
    if (keep_alive_of(job) > 0 || !env_value(job, "SHAREQ_IMAGE").empty()) {
      set_system_comment(job, "shareq: cold start (no matching warm pool)");
      append_admin_word(job, start_word("cold", job));
    }
  }
  if (warm_name.empty()) {
    shareq_env_unset(&job->spank_job_env, &job->spank_job_env_size, "SHAREQ_WARM_NAME");
  } else {
    shareq_env_set(&job->spank_job_env, &job->spank_job_env_size, "SHAREQ_WARM_NAME",
                   warm_name.c_str());
  }
  if (pass_ended_early(job, *reg, nodes, now)) changed = true;
  if (changed) {
    save_locked();
    publish_locked(*reg, now);
  }
}

namespace {

// The registry's part of a job's end, under its lock: the pool the job left warm, if any.
std::optional<warm::WarmPool> record_job_end(job_record_t* job, int64_t now) {
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr) return std::nullopt;
  warm::EndedJob ended;
  ended.id = job->job_id;
  ended.user = user_of(job);
  ended.uid = job->user_id;
  ended.account = to_lower(job->account != nullptr ? job->account : "");
  ended.partition = job->part_ptr != nullptr ? job->part_ptr->name : "";
  ended.image_digest = env_value(job, "SHAREQ_IMAGE_DIGEST");
  ended.nodes = nodes_of_job(job);
  ended.keep_alive_s = keep_alive_of(job);
  const bool on_pool = std::any_of(reg->pools().begin(), reg->pools().end(), [&](const auto& p) {
    return p.second.current_job() == job->job_id;
  });
  if (!on_pool && ended.keep_alive_s <= 0) return std::nullopt;
  const warm::EndCause cause = end_cause(job);
  auto result = reg->on_job_end(ended, cause, now);
  log_ended(result.ended);
  if (result.pool) {
    const warm::WarmPool& pool = *result.pool;
    append_system_comment(
        job, "shareq: left nodes warm as " + pool.name() + " until " + iso_time(pool.expires_at));
    append_admin_word(job,
                      "shareq-left-warm:" + pool.name() + ",until:" + iso_time(pool.expires_at));
    log_info("warm: JobId=%u: %s", job->job_id, warm::describe(pool).c_str());
  }
  save_locked();
  publish_locked(*reg, now);
  return std::move(result.pool);
}

}  // namespace

void warm_job_ended(job_record_t* job, int64_t now) {
  // The notice after the registry's lock: mail_job_info() looks up names (NSS).
  if (const auto pool = record_job_end(job, now)) mail_pool_notice(job, *pool, now);
}

void warm_end_pools(const std::vector<uint64_t>& ids, const std::string& reason, int64_t now) {
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr) return;
  std::vector<warm::WarmPool> ended;
  for (const uint64_t id : ids) {
    if (auto pool = reg->terminate(id, reason)) ended.push_back(std::move(*pool));
  }
  if (ended.empty()) return;
  log_ended(ended);
  save_locked();
  publish_locked(*reg, now);
}

// The pools an admin asked to end: one of their nodes' Extra is "shareq:end" (`shareq pools end
// wp-N`, or `scontrol update NodeName=... Extra=shareq:end`).
std::vector<warm::PoolId> pools_ended_by_admin(const warm::WarmPoolRegistry& reg) {
  std::vector<warm::PoolId> ids;
  for (const auto& [id, pool] : reg.pools()) {
    const bool asked = std::any_of(pool.nodes.begin(), pool.nodes.end(), [](const std::string& n) {
      const node_record_t* node = find_node_record(const_cast<char*>(n.c_str()));
      return node != nullptr && node->extra != nullptr && node->extra == warm::kEndPoolRequest;
    });
    if (asked) ids.push_back(id);
  }
  return ids;
}

void warm_periodic(int64_t now) {
  const RankedLock lock(part().mutex);
  warm::WarmPoolRegistry* reg = registry_locked();
  if (reg == nullptr) return;
  auto ended = reg->expire(now);
  std::vector<std::string> down;
  for (const auto& [id, pool] : reg->pools()) {
    for (const std::string& name : pool.nodes) {
      node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
      if (node == nullptr || IS_NODE_DOWN(node) || IS_NODE_DRAIN(node) ||
          IS_NODE_NO_RESPOND(node)) {
        down.push_back(name);
      }
    }
  }
  for (const std::string& name : down) {
    auto gone = reg->on_node_down(name);
    ended.insert(ended.end(), gone.begin(), gone.end());
  }
  for (const warm::PoolId id : pools_ended_by_admin(*reg)) {
    if (auto pool = reg->terminate(id, "ended by an admin")) ended.push_back(std::move(*pool));
  }
  log_ended(ended);
  bool nodes_changed = false;
  for (int i = 0; i < node_record_count; ++i) {
    node_record_t* node = node_record_table_ptr[i];
    if (node == nullptr) continue;
    const warm::WarmPool* pool = reg->pool_of_node(node->name);
    // The node's Extra (warm/extra_format.hpp: the deadline in epoch seconds).
    const std::string want = pool != nullptr ? warm::node_extra(*pool) : "";
    const bool ours = node->extra != nullptr && warm::is_shareq_extra(node->extra);
    if (pool == nullptr && !ours) continue;  // leave an admin's Extra alone
    if (pool != nullptr && node->extra != nullptr && want == node->extra) continue;
    if (pool != nullptr && node->extra != nullptr && !ours) continue;
    xfree(node->extra);
    if (!want.empty()) node->extra = xstrdup(want.c_str());
    nodes_changed = true;
  }
  if (nodes_changed) last_node_update = now;
  if (!ended.empty()) save_locked();
  publish_locked(*reg, now);
}

void warm_unload() {
  const RankedLock lock(part().mutex);
  // What was queued for the state file is on disk before the registry goes, and nothing is
  // queued in between (saves are queued under this mutex).
  flush_state_saves();
  part().registry.reset();
  part().config_version = 0;
  part().reserved_since.clear();
  part().waiting.store(-1, std::memory_order_release);
  set_reserved_pools({});  // the next use reads the file and publishes them again
}

}  // namespace shareq::ctld
