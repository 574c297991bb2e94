// The warm-pool registry slurmctld keeps: which nodes are warm, for which jobs, until when.
//
// Pure: no clock (`now` is an argument), no I/O, no globals. The select and job-completion shims
// call it under slurmctld's job-write lock and act on what it returns (pin or unpin images,
// delete warm directories, log). The registry is saved with format_registry (state_format.hpp).
//
// Lifecycle:
//   job ends by itself with --keep-alive=T > 0  -> pool Available until now+T (on_job_end)
//   matching job placed on it                   -> InUse (claim); it never expires while InUse
//   that job ends by itself with keep-alive T'  -> Reused until now+T' (on_job_end)
//   that job ends otherwise / without keep-alive -> Expired, or Terminated for node failure and
//                                                   admin cancel
//   time passes expires_at                      -> Expired (expire)
//   admin, node down, non-matching job takes it -> Terminated (terminate, on_node_down,
//                                                   on_nodes_taken)
// Every expiry is capped at created + MaxWarmPoolLifetime. Ended pools leave the registry and
// are returned once, so the caller cleans up after them exactly once. A node is in at most one
// live pool.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"
#include "result.hpp"
#include "warm/jobs.hpp"
#include "warm/pool.hpp"

namespace shareq::warm {

inline constexpr std::string_view kDefaultWarmDirRoot = "/var/lib/shareq/warm";

// Every knob of the registry, with its default.
struct WarmSettings {
  WarmPoolMode mode = WarmPoolMode::Prefer;  // WarmPoolMode
  std::vector<MatchField> match = {MatchField::Image, MatchField::Account, MatchField::User,
                                   MatchField::Partition, MatchField::Nodes};  // WarmPoolMatch
  int64_t max_keep_alive_s = 3600;                                             // MaxKeepAlive
  int64_t max_lifetime_s = int64_t{28} * 86400;                  // MaxWarmPoolLifetime
  std::string warm_dir_root = std::string(kDefaultWarmDirRoot);  // absolute, no trailing '/'

  static WarmSettings from_config(const Config& config,
                                  std::string_view warm_dir_root = kDefaultWarmDirRoot);
};

// The node-local warm directories of pools that ended before their deadline, by node:
// node -> (directory name, node_warm_name() -> the pool's deadline). The prolog of the next job
// starting on the node removes them; after the deadline the node's own sweep does.
using EndedEarly = std::map<std::string, std::map<std::string, Time>>;

class WarmPoolRegistry {
 public:
  explicit WarmPoolRegistry(WarmSettings settings = {}) : settings_(std::move(settings)) {}

  // Rebuilds a registry from saved pools and ended_early() (what parse_registry calls). Errors:
  // a pool not live, ids repeated or not below next_id, a node in two pools, a pool without
  // nodes, an InUse pool without a running job, expires_at before created.
  static Result<WarmPoolRegistry> restore(WarmSettings settings, PoolId next_id,
                                          std::vector<WarmPool> pools, EndedEarly ended_early = {});

  [[nodiscard]] const WarmSettings& settings() const { return settings_; }
  // After a reconfigure: new pools use the new settings; live pools keep their key and
  // directory, and new limits apply from their next extension.
  void set_settings(WarmSettings settings) { settings_ = std::move(settings); }

  struct JobEnd {
    std::optional<WarmPool> pool;  // the pool made or continued (Available / Reused)
    std::vector<WarmPool> ended;   // pools that ended now (the job's own, or overlapped)
  };
  // A job ended at `now`. If it ran on a pool it claimed, the pool continues (Reused, until
  // now + keep-alive, capped by the lifetime) when the job ended by itself (keeps_warm) with
  // keep-alive > 0, else ends. Otherwise such a job makes a new Available pool on its nodes.
  // Keep-alive is clamped to MaxKeepAlive. A job without nodes makes nothing.
  JobEnd on_job_end(const EndedJob& job, EndCause cause, Time now);

  // The waiting pool that `job` may claim at `now`: its key equals the job's key for one of the
  // job's partitions and, when `free_nodes` is given, all its nodes are in it. Several: the
  // job's earlier partition first, then the pool expiring first, then the lower id. nullptr
  // when none. The pointer is valid until the registry changes.
  [[nodiscard]] const WarmPool* match(const JobToStart& job, Time now,
                                      const std::vector<std::string>* free_nodes = nullptr) const;

  // `job` starts on pool `id`: InUse, the job appended to reused_by. Errors: no such live pool,
  // not waiting (already InUse), expired at `now`, or the job does not match its key.
  Result<WarmPool> claim(PoolId id, const JobToStart& job, Time now);

  // Waiting pools whose expires_at <= now become Expired, leave, and are returned (by id).
  // Entries of ended_early() past their deadline are dropped.
  std::vector<WarmPool> expire(Time now);

  // Ends a live pool (Terminated, with `reason`); nullopt when there is none with that id.
  std::optional<WarmPool> terminate(PoolId id, std::string reason);
  // Ends every live pool holding `node` (Terminated).
  std::vector<WarmPool> on_node_down(std::string_view node);
  // A job that did not claim a pool started on `nodes` (prefer mode lets it when nothing else
  // fits): waiting pools holding any of them end (Terminated). Returned by id.
  std::vector<WarmPool> on_nodes_taken(JobId job, const std::vector<std::string>& nodes);

  // A job starts on `nodes`: the warm directories there of pools that ended before their
  // deadline, sorted, each once, for its prolog to remove. Forgotten here, as are those past
  // their deadline (the node's own sweep removes them).
  std::vector<std::string> take_ended_early(const std::vector<std::string>& nodes, Time now);
  [[nodiscard]] const EndedEarly& ended_early() const { return ended_early_; }

  // Reserve mode: the waiting, unexpired pools, by id. Their nodes count against their owner's
  // share (its usage in the policy ledger, and fair-share usage) until a matching job claims
  // them (then the job's own usage counts) or they end. Empty in prefer mode.
  [[nodiscard]] std::vector<const WarmPool*> reserved(Time now) const;
  // The nodes of reserved(now) owned by `account`, sorted.
  [[nodiscard]] std::vector<std::string> nodes_reserved_for(std::string_view account,
                                                            Time now) const;

  [[nodiscard]] const WarmPool* find(PoolId id) const;
  [[nodiscard]] const WarmPool* pool_of_node(std::string_view node) const;
  [[nodiscard]] const std::map<PoolId, WarmPool>& pools() const { return pools_; }
  [[nodiscard]] PoolId next_id() const { return next_id_; }

 private:
  WarmPool end_pool(PoolId id, PoolStatus status, std::string reason);
  std::vector<WarmPool> end_overlapping(const std::vector<std::string>& nodes,
                                        const std::string& reason, bool waiting_only);
  JobEnd continue_pool(WarmPool& pool, const EndedJob& job, EndCause cause, Time now);
  Time capped_expiry(const WarmPool& pool, int64_t keep_alive_s, Time now) const;

  WarmSettings settings_;
  std::map<PoolId, WarmPool> pools_;
  PoolId next_id_ = 1;
  EndedEarly ended_early_;
};

// True when `job`, for one of its partitions, has the pool's key.
bool matches(const WarmPool& pool, const JobToStart& job);

}  // namespace shareq::warm
