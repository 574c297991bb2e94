#include "warm/pool.hpp"

#include <array>

#include "text.hpp"

namespace shareq::warm {
namespace {

constexpr std::array<std::string_view, 5> kStatusNames = {"available", "in-use", "reused",
                                                          "expired", "terminated"};

}  // namespace

std::string_view status_name(PoolStatus status) {
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<PoolStatus> parse_status(std::string_view name) {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<PoolStatus>(i);
  }
  return std::nullopt;
}

std::optional<JobId> WarmPool::current_job() const {
  if (status != PoolStatus::InUse || reused_by.empty()) return std::nullopt;
  return reused_by.back();
}

std::string WarmPool::name() const { return "wp-" + std::to_string(id); }

std::string node_warm_name(JobId origin_job) { return "warm-" + std::to_string(origin_job); }

bool is_node_warm_name(std::string_view name) {
  constexpr std::string_view kPrefix = "warm-";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  const text::Number id = text::parse_decimal(name.substr(kPrefix.size()), UINT32_MAX);
  return id.status == text::NumberStatus::Ok && id.value >= 1;
}

std::string pool_warm_dir(std::string_view root, PoolId id) {
  return std::string(root) + "/wp-" + std::to_string(id);
}

std::string describe(const WarmPool& pool) {
  std::string nodes;
  for (const std::string& node : pool.nodes) {
    if (!nodes.empty()) nodes += ',';
    nodes += node;
  }
  std::string out = pool.name() + " " + std::string(status_name(pool.status));
  out += pool.live() ? " until " : " at ";
  out += std::to_string(pool.expires_at) + " nodes=" + nodes + " owner=" + pool.user + "/" +
         pool.account + " key=" + pool.key.to_string();
  if (!pool.end_reason.empty()) out += " (" + pool.end_reason + ")";
  return out;
}

}  // namespace shareq::warm
