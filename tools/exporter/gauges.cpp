#include "gauges.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "config.hpp"
#include "policy/quota_math.hpp"
#include "queue_report.hpp"
#include "status_report.hpp"

namespace shareq::exporter {
namespace {

MetricFamily gauge(std::string name, std::string help) {
  return {std::move(name), std::move(help), MetricType::Gauge, {}};
}

void add(MetricFamily& family, Labels labels, double value) {
  family.samples.push_back({std::move(labels), value, ""});
}

struct PendingKey {
  std::string family, share, tier;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  auto operator<=>(const PendingKey&) const = default;
};

struct PendingCount {
  int jobs = 0;
  int64_t oldest_submit = 0;
};

std::map<PendingKey, PendingCount> pending_counts(const tool::ClusterState& state) {
  std::map<PendingKey, PendingCount> counts;
  const policy::Policy& policy = state.policy();
  const std::map<uint32_t, bool> within_quota = tool::within_quota_of(state);
  for (const policy::PendingJob& job : state.pending()) {
    const auto found = within_quota.find(job.id);
    const bool within = found != within_quota.end() && found->second;
    for (const policy::FamilyRequest& request : job.requests) {
      PendingCount& count =
          counts[{policy.family(request.family).name, policy.share_name(job.share),
                  within ? "within_quota" : "borrow"}];
      ++count.jobs;
      if (count.oldest_submit == 0 || job.submit_time < count.oldest_submit) {
        count.oldest_submit = job.submit_time;
      }
    }
  }
  return counts;
}

std::vector<MetricFamily> quota_metrics(const std::vector<tool::FamilyStatus>& families) {
  MetricFamily capacity =
      gauge("shareq_family_capacity", "Capacity of the family in its unit (node or gres/gpu).");
  MetricFamily quota = gauge("shareq_share_quota", "Quota of the share in the family.");
  MetricFamily borrow = gauge("shareq_share_borrow_limit",
                              "BorrowLimit of the share in the family; absent when UNLIMITED.");
  MetricFamily lend = gauge("shareq_share_lend_limit",
                            "LendLimit of the share in the family; absent when UNLIMITED.");
  MetricFamily weight = gauge("shareq_share_borrow_weight",
                              "BorrowWeight of the share in the family (1 unless set): its "
                              "borrowers rank by usage / (quota x weight).");
  MetricFamily usage = gauge("shareq_share_usage",
                             "What the share holds in the family, as the scheduler's ledger "
                             "counts it (shareq status USAGE).");
  MetricFamily borrowed =
      gauge("shareq_share_borrowed", "What the share holds in the family beyond its quota.");
  MetricFamily running = gauge("shareq_running_jobs", "Running and suspended jobs of the share.");
  for (const tool::FamilyStatus& f : families) {
    add(capacity, {{"family", f.name}, {"unit", std::string(unit_name(f.unit))}},
        static_cast<double>(f.capacity));
    for (const tool::ShareStatus& s : f.shares) {
      const Labels labels{{"family", f.name}, {"share", s.share}};
      add(quota, labels, static_cast<double>(s.quota));
      if (s.borrow_limit != policy::kUnlimited) {
        add(borrow, labels, static_cast<double>(s.borrow_limit));
      }
      if (s.lend_limit != policy::kUnlimited) add(lend, labels, static_cast<double>(s.lend_limit));
      add(weight, labels, static_cast<double>(s.borrow_weight) / kBorrowWeightScale);
      add(usage, labels, static_cast<double>(s.usage));
      add(borrowed, labels, static_cast<double>(s.borrowed));
      add(running, labels, s.running_jobs);
    }
  }
  return {capacity, quota, borrow, lend, weight, usage, borrowed, running};
}

std::vector<MetricFamily> pending_metrics(const tool::ClusterState& state) {
  MetricFamily pending = gauge("shareq_pending_jobs",
                               "Pending jobs of the share that may run in the family, by tier "
                               "(within_quota or borrow, as priority/shareq ranks them).");
  MetricFamily oldest = gauge("shareq_oldest_pending_seconds",
                              "Seconds since the submission of the oldest pending job of the "
                              "share and tier in the family.");
  for (const auto& [key, count] : pending_counts(state)) {
    const Labels labels{{"family", key.family}, {"share", key.share}, {"tier", key.tier}};
    add(pending, labels, count.jobs);
    add(oldest, labels,
        static_cast<double>(std::max<int64_t>(0, state.now() - count.oldest_submit)));
  }
  return {pending, oldest};
}

// The family of the pool's first node, or empty.
std::string pool_family(const policy::Policy& policy, const tool::WarmPoolRow& pool,
                        const std::vector<tool::NodeInfo>& nodes) {
  if (pool.nodes.empty()) return {};
  const auto node = std::find_if(nodes.begin(), nodes.end(), [&](const tool::NodeInfo& n) {
    return n.name == pool.nodes.front();
  });
  if (node == nodes.end()) return {};
  for (const std::string& partition : node->partitions) {
    if (auto family = policy.family_of_partition(partition)) return policy.family(*family).name;
  }
  return {};
}

std::vector<MetricFamily> pool_metrics(const policy::Policy& policy, const tool::WarmPools& pools,
                                       const std::vector<tool::NodeInfo>& nodes) {
  MetricFamily count = gauge("shareq_warm_pools",
                             "Warm pools on the family's nodes, by state (as shareq pools shows "
                             "them: available, in-use, reused, ...).");
  MetricFamily pool_nodes = gauge("shareq_warm_pool_nodes", "Nodes in the family's warm pools.");
  std::map<std::pair<std::string, std::string>, int> by_state;
  std::map<std::string, size_t> node_count;
  for (size_t f = 0; f < policy.family_count(); ++f) {
    node_count[policy.family(static_cast<policy::FamilyId>(f)).name] = 0;
  }
  for (const tool::WarmPoolRow& pool : pools.pools) {
    const std::string family = pool_family(policy, pool, nodes);
    if (family.empty()) continue;
    ++by_state[{family, pool.pool.status}];
    node_count[family] += pool.nodes.size();
  }
  for (const auto& [key, n] : by_state)
    add(count, {{"family", key.first}, {"state", key.second}}, n);
  for (const auto& [family, n] : node_count) {
    add(pool_nodes, {{"family", family}}, static_cast<double>(n));
  }
  return {count, pool_nodes};
}

}  // namespace

std::vector<MetricFamily> gauge_metrics(const tool::ClusterState& state,
                                        const tool::WarmPools& pools,
                                        const std::vector<tool::NodeInfo>& nodes) {
  std::vector<MetricFamily> out = quota_metrics(tool::family_status(state));
  for (MetricFamily& family : pending_metrics(state)) out.push_back(std::move(family));
  for (MetricFamily& family : pool_metrics(state.policy(), pools, nodes)) {
    out.push_back(std::move(family));
  }
  return out;
}

}  // namespace shareq::exporter
