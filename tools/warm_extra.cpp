#include "warm_extra.hpp"

#include <algorithm>

#include "table.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kPrefix = "shareq:";

Error extra_error(std::string_view extra, std::string_view problem) {
  return Error{"Extra", text::quote(extra) +
                            " is not a shareq warm-pool line: " + std::string(problem) +
                            "; expected \"shareq:wp-N,STATUS,owner=USER/ACCOUNT,"
                            "until=TIME|job=ID,key=KEY\""};
}

// Takes "NAME=" then the value up to the next ',' from the front of `rest`.
std::optional<std::string> take_field(std::string_view& rest, std::string_view name) {
  if (!rest.starts_with(name) || rest.size() <= name.size() || rest[name.size()] != '=') {
    return std::nullopt;
  }
  rest.remove_prefix(name.size() + 1);
  const size_t comma = rest.find(',');
  std::string value(rest.substr(0, comma));
  rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  return value;
}

uint64_t pool_number(const std::string& name) {
  const text::Number n = text::parse_decimal(std::string_view(name).substr(3), UINT32_MAX);
  return n.status == text::NumberStatus::Ok ? n.value : UINT64_MAX;
}

std::string remaining(const WarmExtra& pool, int64_t now) {
  if (!pool.until) return "-";
  const auto until = parse_local_time(*pool.until);
  if (!until) return "?";
  return *until > now ? duration_text(*until - now) : "expired";
}

std::string until_text(const WarmExtra& pool) {
  if (!pool.until) return "-";
  std::string text = *pool.until;
  std::replace(text.begin(), text.end(), 'T', ' ');
  return text;
}

}  // namespace

std::optional<Result<WarmExtra>> parse_warm_extra(std::string_view extra) {
  // An admin's request to end the node's pool is no pool (slurmctld ends it at its next pass).
  if (!extra.starts_with(kPrefix) || extra == kEndPoolRequest) return std::nullopt;
  std::string_view rest = extra.substr(kPrefix.size());
  WarmExtra pool;
  const size_t name_end = rest.find(',');
  pool.pool = std::string(rest.substr(0, name_end));
  if (!pool.pool.starts_with("wp-") || pool_number(pool.pool) == UINT64_MAX ||
      name_end == std::string_view::npos) {
    return Result<WarmExtra>(extra_error(extra, "no pool name wp-N"));
  }
  rest.remove_prefix(name_end + 1);
  const size_t status_end = rest.find(',');
  pool.status = std::string(rest.substr(0, status_end));
  if (pool.status.empty() || status_end == std::string_view::npos) {
    return Result<WarmExtra>(extra_error(extra, "no status"));
  }
  rest.remove_prefix(status_end + 1);
  const auto owner = take_field(rest, "owner");
  const size_t slash = owner ? owner->find('/') : std::string::npos;
  if (slash == std::string::npos) return Result<WarmExtra>(extra_error(extra, "no owner=U/A"));
  pool.user = owner->substr(0, slash);
  pool.account = owner->substr(slash + 1);
  if (auto until = take_field(rest, "until")) {
    pool.until = std::move(until);
  } else if (auto job = take_field(rest, "job")) {
    const text::Number id = text::parse_decimal(*job, UINT32_MAX);
    if (id.status != text::NumberStatus::Ok)
      return Result<WarmExtra>(extra_error(extra, "bad job="));
    pool.job = static_cast<uint32_t>(id.value);
  } else {
    return Result<WarmExtra>(extra_error(extra, "no until= or job="));
  }
  if (!rest.starts_with("key=")) return Result<WarmExtra>(extra_error(extra, "no key="));
  pool.key = std::string(rest.substr(4));  // the key is the rest, commas and all
  return Result<WarmExtra>(std::move(pool));
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
    if (const auto at = p.until ? parse_local_time(*p.until) : std::nullopt; at.has_value()) {
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
