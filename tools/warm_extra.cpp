#include "warm_extra.hpp"

#include <algorithm>

#include "table.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

uint64_t pool_number(const std::string& name) {
  return warm::pool_number(name).value_or(UINT64_MAX);
}

std::string remaining(const WarmExtra& pool, int64_t now) {
  if (!pool.until && !pool.until_local) return "-";
  const auto until = until_epoch(pool);
  if (!until) return "?";
  return *until > now ? duration_text(*until - now) : "expired";
}

// Local time, "YYYY-MM-DD HH:MM:SS"; an old-form time as it was written.
std::string until_text(const WarmExtra& pool) {
  if (pool.until) return local_time_text(*pool.until);
  if (!pool.until_local) return "-";
  std::string text = warm::format_local_date_time(*pool.until_local);
  std::replace(text.begin(), text.end(), 'T', ' ');
  return text;
}

}  // namespace

std::optional<int64_t> until_epoch(const WarmExtra& pool) {
  if (pool.until) return pool.until;
  if (pool.until_local) return parse_local_time(warm::format_local_date_time(*pool.until_local));
  return std::nullopt;
}

WarmPools collect_pools(const std::vector<NodeInfo>& nodes) {
  WarmPools out;
  for (const NodeInfo& node : nodes) {
    const auto parsed = parse_warm_extra(node.extra);
    if (!parsed) continue;
    if (!*parsed) {
      out.problems.push_back("node " + node.name + ": " + parsed->error().to_string());
      continue;
    }
    const WarmExtra& pool = parsed->value();
    auto it = std::find_if(out.pools.begin(), out.pools.end(),
                           [&](const WarmPoolRow& row) { return row.pool.pool == pool.pool; });
    if (it == out.pools.end()) {
      out.pools.push_back({pool, {}});
      it = out.pools.end() - 1;
    }
    it->nodes.push_back(node.name);
  }
  std::sort(out.pools.begin(), out.pools.end(), [](const WarmPoolRow& a, const WarmPoolRow& b) {
    return pool_number(a.pool.pool) < pool_number(b.pool.pool);
  });
  return out;
}

std::string format_pools(const WarmPools& pools, int64_t now) {
  std::string out;
  if (pools.pools.empty()) {
    out = "no warm pools\n";
  } else {
    Table table({"POOL", "STATUS", "OWNER", "NODES", "UNTIL", "REMAINING", "JOB", "KEY"});
    for (const WarmPoolRow& row : pools.pools) {
      const WarmExtra& p = row.pool;
      table.add({p.pool, p.status, p.user + "/" + p.account, text::join(row.nodes, ","),
                 until_text(p), remaining(p, now), p.job ? std::to_string(*p.job) : "-", p.key});
    }
    out = table.render();
  }
  for (const std::string& problem : pools.problems) out += "shareq: pools: " + problem + "\n";
  return out;
}

std::string format_pools_json(const WarmPools& pools, int64_t now) {
  std::string out = "{\"pools\":[";
  for (size_t i = 0; i < pools.pools.size(); ++i) {
    const WarmExtra& p = pools.pools[i].pool;
    std::vector<std::string> nodes;
    for (const std::string& n : pools.pools[i].nodes) nodes.push_back(json_string(n));
    std::string until = "null";
    std::string left = "null";
    if (const auto at = until_epoch(p); at.has_value()) {
      until = std::to_string(*at);
      left = std::to_string(std::max<int64_t>(*at - now, 0));
    }
    out += std::string(i > 0 ? "," : "") + "{\"pool\":" + json_string(p.pool) +
           ",\"status\":" + json_string(p.status) + ",\"user\":" + json_string(p.user) +
           ",\"account\":" + json_string(p.account) + ",\"nodes\":[" + text::join(nodes, ",") +
           "],\"until\":" + until + ",\"remaining_s\":" + left +
           ",\"job\":" + (p.job ? std::to_string(*p.job) : "null") +
           ",\"key\":" + json_string(p.key) + "}";
  }
  out += "],\"problems\":[";
  for (size_t i = 0; i < pools.problems.size(); ++i) {
    out += std::string(i > 0 ? "," : "") + json_string(pools.problems[i]);
  }
  return out + "]}\n";
}

const WarmPoolRow* find_pool(const WarmPools& pools, std::string_view name) {
  const auto it = std::find_if(pools.pools.begin(), pools.pools.end(),
                               [&](const WarmPoolRow& row) { return row.pool.pool == name; });
  return it != pools.pools.end() ? &*it : nullptr;
}

std::string pool_names(const WarmPools& pools) {
  std::string names;
  for (const WarmPoolRow& row : pools.pools) names += (names.empty() ? "" : ", ") + row.pool.pool;
  return names;
}

}  // namespace shareq::tool
