#include "warm/registry.hpp"

#include <algorithm>
#include <iterator>
#include <set>

namespace shareq::warm {
namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

bool overlaps(const std::vector<std::string>& sorted, const std::vector<std::string>& nodes) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const std::string& node) {
    return std::binary_search(sorted.begin(), sorted.end(), node);
  });
}

bool all_in(const std::vector<std::string>& nodes, const std::vector<std::string>& set) {
  return std::all_of(nodes.begin(), nodes.end(), [&](const std::string& node) {
    return std::find(set.begin(), set.end(), node) != set.end();
  });
}

// The index of the first of the job's partitions for which it has the pool's key.
std::optional<size_t> matching_partition(const WarmPool& pool, const JobToStart& job) {
  for (size_t i = 0; i < job.partitions.size(); ++i) {
    if (make_key(pool.match, job, job.partitions[i]) == pool.key) return i;
  }
  return std::nullopt;
}

Result<bool> check_restored(const WarmPool& pool, PoolId next_id, std::set<std::string>& seen) {
  const std::string at = pool.name() + ": ";
  if (!pool.live()) return Error{"warm pool", at + "an ended pool cannot be restored"};
  if (pool.id == 0 || pool.id >= next_id) {
    return Error{"warm pool", at + "id is not below next-id " + std::to_string(next_id)};
  }
  if (pool.nodes.empty()) return Error{"warm pool", at + "has no nodes"};
  if (pool.status == PoolStatus::InUse && pool.reused_by.empty()) {
    return Error{"warm pool", at + "is in use but names no job"};
  }
  if ((pool.status == PoolStatus::Available) != pool.reused_by.empty()) {
    return Error{"warm pool", at + "status " + std::string(status_name(pool.status)) +
                                  " does not fit its list of reusing jobs"};
  }
  if (pool.expires_at < pool.created) {
    return Error{"warm pool", at + "expires before it was created"};
  }
  for (const std::string& node : pool.nodes) {
    if (!seen.insert(node).second) {
      return Error{"warm pool", at + "node " + node + " is in two pools (or twice in one)"};
    }
  }
  return true;
}

}  // namespace

WarmSettings WarmSettings::from_config(const Config& config, std::string_view warm_dir_root) {
  WarmSettings settings;
  settings.mode = config.warm_pool_mode;
  settings.match = config.warm_pool_match;
  settings.max_keep_alive_s = config.max_keep_alive_s;
  settings.max_lifetime_s = config.max_warm_pool_lifetime_s;
  settings.warm_dir_root = std::string(warm_dir_root);
  return settings;
}

bool matches(const WarmPool& pool, const JobToStart& job) {
  return matching_partition(pool, job).has_value();
}

Result<WarmPoolRegistry> WarmPoolRegistry::restore(WarmSettings settings, PoolId next_id,
                                                   std::vector<WarmPool> pools,
                                                   EndedEarly ended_early) {
  WarmPoolRegistry registry(std::move(settings));
  registry.next_id_ = next_id;
  registry.ended_early_ = std::move(ended_early);
  std::set<std::string> seen;
  std::set<JobId> running;
  for (WarmPool& pool : pools) {
    std::sort(pool.nodes.begin(), pool.nodes.end());
    Result<bool> ok = check_restored(pool, next_id, seen);
    if (!ok) return ok.error();
    if (registry.pools_.count(pool.id) != 0) {
      return Error{"warm pool", pool.name() + ": id appears twice"};
    }
    if (pool.current_job() && !running.insert(*pool.current_job()).second) {
      return Error{"warm pool", pool.name() + ": its job runs on another pool too"};
    }
    const PoolId id = pool.id;
    registry.pools_.emplace(id, std::move(pool));
  }
  return registry;
}

Time WarmPoolRegistry::capped_expiry(const WarmPool& pool, int64_t keep_alive_s, Time now) const {
  const int64_t keep = std::clamp<int64_t>(keep_alive_s, 0, settings_.max_keep_alive_s);
  const Time cap = pool.created + std::max<int64_t>(settings_.max_lifetime_s, 0);
  return std::min(now + keep, cap);
}

WarmPool WarmPoolRegistry::end_pool(PoolId id, PoolStatus status, std::string reason) {
  auto node = pools_.extract(id);
  WarmPool pool = std::move(node.mapped());
  pool.status = status;
  pool.end_reason = std::move(reason);
  // Every ended pool is noted; those that ended at their deadline are dropped by the next
  // expire() and never handed out by take_ended_early().
  for (const std::string& node : pool.nodes) {
    ended_early_[node][node_warm_name(pool.origin_job)] = pool.expires_at;
  }
  return pool;
}

std::vector<WarmPool> WarmPoolRegistry::end_overlapping(const std::vector<std::string>& nodes,
                                                        const std::string& reason,
                                                        bool waiting_only) {
  std::vector<PoolId> ids;
  for (const auto& [id, pool] : pools_) {
    if ((!waiting_only || pool.waiting()) && overlaps(pool.nodes, nodes)) ids.push_back(id);
  }
  std::vector<WarmPool> ended;
  for (PoolId id : ids) ended.push_back(end_pool(id, PoolStatus::Terminated, reason));
  return ended;
}

WarmPoolRegistry::JobEnd WarmPoolRegistry::continue_pool(WarmPool& pool, const EndedJob& job,
                                                         EndCause cause, Time now) {
  JobEnd result;
  const std::string job_name = "job " + std::to_string(job.id);
  if (cause == EndCause::NodeFail || cause == EndCause::AdminCancel) {
    const char* why = cause == EndCause::NodeFail ? " lost a node" : " was cancelled by an admin";
    result.ended.push_back(end_pool(pool.id, PoolStatus::Terminated, job_name + why));
    return result;
  }
  const Time expiry = capped_expiry(pool, job.keep_alive_s, now);
  if (!keeps_warm(cause) || job.keep_alive_s <= 0 || expiry <= now) {
    const char* why = expiry <= now && keeps_warm(cause) && job.keep_alive_s > 0
                          ? " ended at MaxWarmPoolLifetime"
                          : " ended without keeping the pool";
    result.ended.push_back(end_pool(pool.id, PoolStatus::Expired, job_name + why));
    return result;
  }
  pool.status = PoolStatus::Reused;
  pool.expires_at = expiry;
  pool.image_digest = job.image_digest;  // the node pins the image of the pool's last job
  result.pool = pool;
  return result;
}

WarmPoolRegistry::JobEnd WarmPoolRegistry::on_job_end(const EndedJob& job, EndCause cause,
                                                      Time now) {
  for (auto& [id, pool] : pools_) {
    if (pool.current_job() == job.id) return continue_pool(pool, job, cause, now);
  }
  JobEnd result;
  if (!keeps_warm(cause) || job.keep_alive_s <= 0 || job.nodes.empty()) return result;
  WarmPool pool;
  pool.id = next_id_;
  pool.created = now;
  pool.expires_at = capped_expiry(pool, job.keep_alive_s, now);
  if (pool.expires_at <= now) return result;  // MaxWarmPoolLifetime or MaxKeepAlive is 0
  ++next_id_;
  pool.match = settings_.match;
  pool.nodes = sorted_unique(job.nodes);
  EndedJob facts = job;
  facts.nodes = pool.nodes;
  pool.key = make_key(settings_.match, facts);
  pool.user = job.user;
  pool.uid = job.uid;
  pool.account = job.account;
  pool.partition = job.partition;
  pool.image_digest = job.image_digest;
  pool.origin_job = job.id;
  pool.warm_dir = pool_warm_dir(settings_.warm_dir_root, pool.id);
  result.ended = end_overlapping(pool.nodes, "nodes now warm for " + pool.name(), false);
  result.pool = pool;
  pools_.emplace(pool.id, std::move(pool));
  return result;
}

const WarmPool* WarmPoolRegistry::match(const JobToStart& job, Time now,
                                        const std::vector<std::string>* free_nodes) const {
  const WarmPool* best = nullptr;
  size_t best_partition = 0;
  for (const auto& [id, pool] : pools_) {
    if (!pool.waiting() || pool.expires_at <= now) continue;
    if (free_nodes != nullptr && !all_in(pool.nodes, *free_nodes)) continue;
    const std::optional<size_t> partition = matching_partition(pool, job);
    if (!partition) continue;
    // Pools are visited by increasing id, so a strict comparison keeps the lower id on ties.
    if (best == nullptr || *partition < best_partition ||
        (*partition == best_partition && pool.expires_at < best->expires_at)) {
      best = &pool;
      best_partition = *partition;
    }
  }
  return best;
}

Result<WarmPool> WarmPoolRegistry::claim(PoolId id, const JobToStart& job, Time now) {
  auto it = pools_.find(id);
  const std::string name = "wp-" + std::to_string(id);
  if (it == pools_.end()) return Error{"warm pool", name + " does not exist (it ended)"};
  WarmPool& pool = it->second;
  if (!pool.waiting()) {
    return Error{"warm pool", name + " is in use by job " + std::to_string(*pool.current_job())};
  }
  if (pool.expires_at <= now) return Error{"warm pool", name + " has expired"};
  if (!matches(pool, job)) {
    return Error{"warm pool", name + " does not match job " + std::to_string(job.id) +
                                  " (pool key " + pool.key.to_string() + ")"};
  }
  pool.status = PoolStatus::InUse;
  pool.reused_by.push_back(job.id);
  return pool;
}

std::vector<WarmPool> WarmPoolRegistry::expire(Time now) {
  std::vector<PoolId> ids;
  for (const auto& [id, pool] : pools_) {
    if (pool.waiting() && pool.expires_at <= now) ids.push_back(id);
  }
  std::vector<WarmPool> ended;
  for (PoolId id : ids) ended.push_back(end_pool(id, PoolStatus::Expired, "keep-alive ran out"));
  for (auto node = ended_early_.begin(); node != ended_early_.end();) {
    std::erase_if(node->second, [now](const auto& entry) { return entry.second <= now; });
    node = node->second.empty() ? ended_early_.erase(node) : std::next(node);
  }
  return ended;
}

std::vector<std::string> WarmPoolRegistry::take_ended_early(const std::vector<std::string>& nodes,
                                                            Time now) {
  std::set<std::string> names;
  for (const std::string& node : nodes) {
    const auto it = ended_early_.find(node);
    if (it == ended_early_.end()) continue;
    for (const auto& [name, until] : it->second) {
      if (until > now) names.insert(name);
    }
    ended_early_.erase(it);
  }
  return {names.begin(), names.end()};
}

std::optional<WarmPool> WarmPoolRegistry::terminate(PoolId id, std::string reason) {
  if (pools_.count(id) == 0) return std::nullopt;
  return end_pool(id, PoolStatus::Terminated, std::move(reason));
}

std::vector<WarmPool> WarmPoolRegistry::on_node_down(std::string_view node) {
  return end_overlapping({std::string(node)}, "node " + std::string(node) + " went down", false);
}

std::vector<WarmPool> WarmPoolRegistry::on_nodes_taken(JobId job,
                                                       const std::vector<std::string>& nodes) {
  return end_overlapping(nodes, "nodes taken by job " + std::to_string(job), true);
}

std::vector<const WarmPool*> WarmPoolRegistry::reserved(Time now) const {
  std::vector<const WarmPool*> out;
  if (settings_.mode != WarmPoolMode::Reserve) return out;
  for (const auto& [id, pool] : pools_) {
    if (pool.waiting() && pool.expires_at > now) out.push_back(&pool);
  }
  return out;
}

std::vector<std::string> WarmPoolRegistry::nodes_reserved_for(std::string_view account,
                                                              Time now) const {
  std::vector<std::string> nodes;
  for (const WarmPool* pool : reserved(now)) {
    if (pool->account == account) nodes.insert(nodes.end(), pool->nodes.begin(), pool->nodes.end());
  }
  return sorted_unique(std::move(nodes));
}

const WarmPool* WarmPoolRegistry::find(PoolId id) const {
  auto it = pools_.find(id);
  return it == pools_.end() ? nullptr : &it->second;
}

const WarmPool* WarmPoolRegistry::pool_of_node(std::string_view node) const {
  for (const auto& [id, pool] : pools_) {
    if (std::binary_search(pool.nodes.begin(), pool.nodes.end(), node)) return &pool;
  }
  return nullptr;
}

}  // namespace shareq::warm
