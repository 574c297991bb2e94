#include "cluster_state.hpp"

#include <algorithm>

#include "policy/decision.hpp"
#include "policy/held_capacity.hpp"
#include "policy/job_record.hpp"
#include "policy/reclaim_claims.hpp"
#include "text.hpp"
#include "warm_extra.hpp"

namespace shareq::tool {

policy::JobRecord job_record_of(const JobInfo& job) {
  policy::JobRecord r{job.id,          job.account,    job.partitions,
                      job.nodes,       job.gpus,       job.admin_comment,
                      job.submit_time, job.start_time, job.nice};
  r.eligible_time = job.eligible_time;
  r.restarts = job.restarts;
  return r;
}

std::string share_name_of(const policy::Policy& policy, const JobInfo& job) {
  const auto share = policy::share_of(policy, job_record_of(job));
  return share ? policy.share_name(*share) : to_lower(job.account);
}

namespace {

std::vector<policy::RunningJob> running_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs) {
  std::vector<policy::RunningJob> running;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Running && job.state != JobState::Suspended) continue;
    if (auto r = policy::as_running(policy, job_record_of(job))) running.push_back(*r);
  }
  return running;
}

std::vector<policy::PendingJob> pending_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs, int64_t now) {
  std::vector<policy::PendingJob> pending;
  for (const JobInfo& job : jobs) {
    if (job.state != JobState::Pending) continue;
    auto p = policy::as_pending(policy, job_record_of(job), now);
    if (!p) continue;
    p->awaiting_victims = job.reason.find(policy::kAwaitingVictims) != std::string::npos;
    pending.push_back(std::move(*p));
  }
  return pending;
}

// The jobs that `claimant` preempted: select/shareq writes "shareq: preempted by job N (reclaim):
// ..." or "(in-share)" on each victim's SystemComment.
std::vector<const JobInfo*> victims_of(const std::vector<JobInfo>& jobs, policy::JobId claimant) {
  const std::string mark = "shareq: preempted by job " + std::to_string(claimant) + " (";
  std::vector<const JobInfo*> victims;
  for (const JobInfo& job : jobs) {
    if (job.system_comment.rfind(mark, 0) == 0) victims.push_back(&job);
  }
  return victims;
}

constexpr policy::FamilyId kNoFamily = ~policy::FamilyId{0};

// The reclaims in flight, as slurmctld keeps them (ctld/reclaim_claims.hpp): a pending job whose
// victims were signalled (a job's SystemComment names it and its PreemptTime is set) no more than
// PreemptGraceTime + job_end_allowance_s ago (the claim's lifetime), or whose reason says it waits
// for them (the scheduler's own words). Each is its request in the family its victims ran in
// (else its first family), since they were signalled. Marks those jobs awaiting_victims, as
// slurmctld's reclaim_in_flight() does, and victims_running while a victim still runs, as its
// claim_victims_running() does.
std::vector<policy::ReclaimClaim> claims_of(const policy::Policy& policy,
                                            const std::vector<JobInfo>& jobs,
                                            std::vector<policy::PendingJob>& pending, int64_t now,
                                            int64_t allowance) {
  const int64_t lifetime = policy::claim_lifetime_s(policy.preempt_grace_time_s, allowance);
  std::vector<policy::ReclaimClaim> claims;
  for (policy::PendingJob& p : pending) {
    policy::ReclaimClaim claim{
        p.id, p.share, p.requests.front().family, p.requests.front().amount, p.priority, 0, {}};
    bool family_known = false;
    bool victim_running = false;
    for (const JobInfo* victim : victims_of(jobs, p.id)) {
      claim.victims.push_back(victim->id);
      victim_running = victim_running || victim->state == JobState::Running ||
                       victim->state == JobState::Suspended;
      claim.since = std::max(claim.since, victim->preempt_time);
      if (family_known || victim->partitions.empty()) continue;
      const policy::FamilyId family =
          policy.family_of_partition(victim->partitions.front()).value_or(kNoFamily);
      for (const policy::FamilyRequest& r : p.requests) {
        if (r.family != family) continue;
        claim.family = r.family;
        claim.amount = r.amount;
        family_known = true;
      }
    }
    const bool signalled = claim.since > 0 && now - claim.since <= lifetime;
    if (!signalled && !p.awaiting_victims) continue;
    p.awaiting_victims = true;
    p.victims_running = victim_running;
    if (claim.since == 0) claim.since = now;
    claims.push_back(std::move(claim));
  }
  return claims;
}

const NodeInfo* find_node(const std::vector<NodeInfo>& nodes, const std::string& name) {
  const auto it =
      std::find_if(nodes.begin(), nodes.end(), [&](const NodeInfo& n) { return n.name == name; });
  return it != nodes.end() ? &*it : nullptr;
}

// The partitions every node of `names` is in, in the first node's order.
std::vector<std::string> common_partitions(const std::vector<NodeInfo>& nodes,
                                           const std::vector<std::string>& names) {
  std::vector<std::string> common;
  const NodeInfo* first = names.empty() ? nullptr : find_node(nodes, names.front());
  if (first == nullptr) return common;
  for (const std::string& partition : first->partitions) {
    const bool everywhere = std::all_of(names.begin(), names.end(), [&](const std::string& n) {
      const NodeInfo* node = find_node(nodes, n);
      return node != nullptr && std::find(node->partitions.begin(), node->partitions.end(),
                                          partition) != node->partitions.end();
    });
    if (everywhere) common.push_back(partition);
  }
  return common;
}

struct Reserved {
  std::vector<ReservedPoolInfo> pools;
  std::vector<policy::HeldCapacity> held;
};

// WarmPoolMode=reserve: the pools the nodes' Extra shows waiting and not expired at `now`, with
// what each holds (as slurmctld's WarmPoolRegistry::reserved and ctld::held_capacity count them).
Reserved reserved_of(const Config& config, const policy::Policy& policy,
                     const std::vector<NodeInfo>& nodes, int64_t now,
                     std::vector<std::string>& problems) {
  const WarmPools pools = collect_pools(nodes);
  problems.insert(problems.end(), pools.problems.begin(), pools.problems.end());
  Reserved out;
  if (config.warm_pool_mode != WarmPoolMode::Reserve) return out;
  for (const WarmPoolRow& row : pools.pools) {
    const WarmExtra& pool = row.pool;
    const auto status = warm::parse_status(pool.status);
    const auto until = until_epoch(pool);
    const auto id = warm::pool_number(pool.pool);
    if (!status ||
        (*status != warm::PoolStatus::Available && *status != warm::PoolStatus::Reused) || !until ||
        *until <= now || !id) {
      continue;
    }
    int64_t gpus = 0;
    for (const std::string& name : row.nodes) gpus += find_node(nodes, name)->gpus;
    const auto nodes_held = static_cast<int64_t>(row.nodes.size());
    std::optional<ReservedPoolInfo> chosen;
    for (const std::string& partition : common_partitions(nodes, row.nodes)) {
      const auto held =
          policy::held_capacity(policy, *id, pool.account, partition, nodes_held, gpus);
      if (!held) continue;
      if (!chosen) {
        chosen = ReservedPoolInfo{pool.pool, partition, row.nodes, *held};
      } else if (chosen->held.family != held->family) {
        problems.push_back("warm pool " + pool.pool + " on " + text::join(row.nodes, ",") +
                           ": its nodes are in partitions " + chosen->partition + " (family " +
                           policy.family(chosen->held.family).name + ") and " + partition +
                           " (family " + policy.family(held->family).name +
                           "); not counted, since the Extra does not say which one it holds");
        chosen.reset();
        break;
      }
    }
    if (!chosen) continue;
    out.held.push_back(chosen->held);
    out.pools.push_back(std::move(*chosen));
  }
  return out;
}

// Every node still COMPLETING a job that ended, once per partition of the node in a family.
std::vector<CompletingEntry> completing_of(const policy::Policy& policy,
                                           const std::vector<JobInfo>& jobs,
                                           const std::vector<NodeInfo>& nodes) {
  std::vector<CompletingEntry> out;
  for (const JobInfo& job : jobs) {
    if (!job.completing || job.end_time <= 0) continue;
    for (const std::string& name : job.node_names) {
      const NodeInfo* node = find_node(nodes, name);
      if (node == nullptr || !node->completing) continue;
      for (const std::string& partition : node->partitions) {
        if (const auto family = policy.family_of_partition(partition)) {
          out.push_back({name, partition, {*family, job.end_time}});
        }
      }
    }
  }
  return out;
}

std::vector<policy::CompletingNode> plain(const std::vector<CompletingEntry>& entries) {
  std::vector<policy::CompletingNode> out;
  out.reserve(entries.size());
  for (const CompletingEntry& e : entries) out.push_back(e.completing);
  return out;
}

}  // namespace

ClusterState::ClusterState(const Config& config, std::vector<JobInfo> jobs)
    : ClusterState(config, ClusterData{std::move(jobs), {}, 0, 0}) {}

ClusterState::ClusterState(const Config& config, ClusterData data)
    : policy_(policy::Policy::compile(config)),
      jobs_(std::move(data.jobs)),
      now_(data.now),
      allowance_(data.job_end_allowance_s),
      pending_(pending_of(policy_, jobs_, now_)),
      claims_(claims_of(policy_, jobs_, pending_, now_, allowance_)),
      running_(policy::with_claims(running_of(policy_, jobs_), claims_)),
      completing_(completing_of(policy_, jobs_, data.nodes)),
      all_completing_(plain(completing_)),
      ledger_(policy_, running_) {
  Reserved reserved = reserved_of(config, policy_, data.nodes, now_, problems_);
  reserved_ = std::move(reserved.pools);
  held_ = std::move(reserved.held);
  for (const policy::HeldCapacity& held : held_) ledger_.add(held);
}

policy::ControllerView ClusterState::view() const {
  return {ledger_, running_, held_, all_completing_, allowance_};
}

std::vector<policy::CompletingNode> ClusterState::completing_for(
    const policy::PendingJob& job) const {
  const JobInfo* info = this->job(job.id);
  std::vector<policy::CompletingNode> out;
  for (const CompletingEntry& e : completing_) {
    if (info != nullptr && std::find(info->partitions.begin(), info->partitions.end(),
                                     e.partition) != info->partitions.end()) {
      out.push_back(e.completing);
    }
  }
  return out;
}

policy::Decision ClusterState::decide(const policy::PendingJob& job, policy::FamilyId family,
                                      int64_t now) const {
  const std::vector<policy::CompletingNode> completing = completing_for(job);
  const policy::ControllerView view{ledger_, running_, held_, completing, allowance_};
  return policy::decide(view, job, family, now);
}

std::vector<const JobInfo*> ClusterState::queue(policy::FamilyId family) const {
  std::vector<const JobInfo*> queue;
  for (const policy::PendingJob& p : pending_) {
    const JobInfo* info = job(p.id);
    const bool here =
        std::any_of(p.requests.begin(), p.requests.end(),
                    [&](const policy::FamilyRequest& r) { return r.family == family; });
    if (here && info != nullptr && info->priority > 0) queue.push_back(info);
  }
  std::sort(queue.begin(), queue.end(), [](const JobInfo* a, const JobInfo* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->id < b->id;
  });
  return queue;
}

const JobInfo* ClusterState::next_to_start(policy::FamilyId family, int64_t now) const {
  for (const JobInfo* info : queue(family)) {
    const policy::PendingJob& job = *pending_job(info->id);
    // A job awaiting its victims has the capacity they free, even while one still runs.
    if (job.awaiting_victims || decide(job, family, now).verdict != policy::Verdict::Wait) {
      return info;
    }
  }
  return nullptr;
}

const JobInfo* ClusterState::job(uint32_t id) const {
  const auto it =
      std::find_if(jobs_.begin(), jobs_.end(), [&](const JobInfo& j) { return j.id == id; });
  return it != jobs_.end() ? &*it : nullptr;
}

const policy::RunningJob* ClusterState::running_job(uint32_t id) const {
  const auto it = std::find_if(running_.begin(), running_.end(),
                               [&](const policy::RunningJob& j) { return j.id == id; });
  return it != running_.end() ? &*it : nullptr;
}

const policy::PendingJob* ClusterState::pending_job(uint32_t id) const {
  const auto it = std::find_if(pending_.begin(), pending_.end(),
                               [&](const policy::PendingJob& j) { return j.id == id; });
  return it != pending_.end() ? &*it : nullptr;
}

}  // namespace shareq::tool
