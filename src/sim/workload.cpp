#include "sim/workload.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "text.hpp"

namespace shareq::sim {
namespace {

void count(std::vector<Skipped>& dropped, const std::string& reason) {
  for (Skipped& s : dropped) {
    if (s.reason == reason) {
      ++s.count;
      return;
    }
  }
  dropped.push_back({reason, 1});
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Resolver {
 public:
  Resolver(const SlurmCluster& cluster, const policy::Policy& policy)
      : cluster_(cluster), policy_(policy) {
    for (const auto& partition : cluster.partitions) {
      int64_t widest = 0;
      for (int node : partition.nodes) widest = std::max(widest, cluster.nodes[node].gpus);
      widest_.push_back(widest);
    }
  }

  // The job's requests, or the reason it can never run (empty requests).
  std::string resolve(const TraceJob& trace, SimJob& job) {
    // As job_submit/shareq: an account in no share borrows as the unlisted accounts' share
    // (UnlistedAccounts=borrow); under refuse it can never run. (A trace has no account tree:
    // a sub-account counts as unlisted here.)
    auto share = policy_.share_id(trace.share);
    if (!share) share = policy_.unlisted_share();
    if (!share) {
      return "share " + text::quote(to_lower(trace.share)) +
             " is in no Share= line (UnlistedAccounts=refuse)";
    }
    job.share = *share;
    std::string first_reason;
    for (const std::string& name : trace.partitions) {
      std::string reason = request(trace, name, job);
      if (first_reason.empty()) first_reason = reason;
    }
    return job.requests.empty() ? first_reason : "";
  }

 private:
  std::string request(const TraceJob& trace, const std::string& name, SimJob& job) {
    const SimPartition* partition = cluster_.find_partition(name);
    if (partition == nullptr) return "partition " + text::quote(name) + " is not in slurm.conf";
    const auto family = policy_.family_of_partition(name);
    if (!family) return "partition " + text::quote(name) + " is in no Family=";
    const int index = static_cast<int>(partition - cluster_.partitions.data());
    const auto shape = shape_of(trace, index);
    if (!shape) return "larger than partition " + text::quote(name);
    if (policy_.rule(job.share, *family) == nullptr) {
      return "share has no quota in family " + text::quote(policy_.family(*family).name);
    }
    const int64_t amount = policy_.family(*family).unit == Unit::Gpu ? shape->gpus() : shape->nodes;
    if (amount > policy_.family(*family).capacity) {
      return "larger than family " + text::quote(policy_.family(*family).name) + "'s capacity";
    }
    for (const auto& r : job.requests) {
      if (r.family == *family) return "";
    }
    job.requests.push_back({*family, amount});
    job.shapes.push_back(*shape);
    return "";
  }

  // As few nodes as hold the GPUs (or the nodes asked for), the GPUs spread evenly.
  std::optional<Shape> shape_of(const TraceJob& trace, int partition) {
    const int64_t widest = widest_[partition];
    if (widest <= 0) return std::nullopt;
    const int64_t nodes = trace.nodes > 0 ? trace.nodes : ceil_div(trace.gpus, widest);
    const Shape shape{partition, ceil_div(trace.gpus, nodes), nodes};
    if (shape.per_node > widest) return std::nullopt;
    if (roomy(partition, shape.per_node) < shape.nodes) return std::nullopt;
    return shape;
  }

  // The partition's nodes with at least `per_node` GPUs, counted once per pair (a count per job
  // would cost a million jobs times the nodes).
  int64_t roomy(int partition, int64_t per_node) {
    const auto [it, added] = roomy_.try_emplace({partition, per_node}, 0);
    if (added) {
      const auto& members = cluster_.partitions[partition].nodes;
      it->second = std::count_if(members.begin(), members.end(),
                                 [&](int n) { return cluster_.nodes[n].gpus >= per_node; });
    }
    return it->second;
  }

  const SlurmCluster& cluster_;
  const policy::Policy& policy_;
  std::vector<int64_t> widest_;
  std::map<std::pair<int, int64_t>, int64_t> roomy_;
};

void build_groups(const SlurmCluster& cluster, const policy::Policy& policy, Workload& out) {
  for (const auto& node : cluster.nodes) out.node_gpus.push_back(node.gpus);
  for (const auto& partition : cluster.partitions) out.groups.push_back(partition.nodes);
  for (policy::FamilyId f = 0; f < policy.family_count(); ++f) {
    std::vector<int> nodes;
    for (const auto& partition : cluster.partitions) {
      if (policy.family_of_partition(partition.name) == f) {
        nodes.insert(nodes.end(), partition.nodes.begin(), partition.nodes.end());
      }
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    int64_t gpus = 0;
    for (int n : nodes) gpus += cluster.nodes[n].gpus;
    out.groups.push_back(std::move(nodes));
    out.family_gpus.push_back(gpus);
  }
}

}  // namespace

Workload prepare_workload(const Trace& trace, const SlurmCluster& cluster,
                          const policy::Policy& policy) {
  Workload out;
  build_groups(cluster, policy, out);
  std::vector<size_t> order(trace.jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return trace.jobs[a].submit < trace.jobs[b].submit; });
  if (!order.empty()) out.origin = trace.jobs[order.front()].submit;
  Resolver resolver(cluster, policy);
  for (size_t index : order) {
    const TraceJob& t = trace.jobs[index];
    SimJob job;
    const std::string reason = resolver.resolve(t, job);
    if (!reason.empty()) {
      count(out.dropped, reason);
      continue;
    }
    job.id = static_cast<policy::JobId>(out.jobs.size() + 1);
    job.trace_index = index;
    job.priority = t.priority.value_or(policy.default_priority);
    job.submit = t.submit - out.origin;
    job.run_s = t.run_s;
    out.jobs.push_back(std::move(job));
  }
  return out;
}

}  // namespace shareq::sim
