#include "warm/placement.hpp"

#include <algorithm>

namespace shareq::warm {
namespace {

bool is_candidate(const std::vector<std::string>& candidates, const std::string& node) {
  return std::find(candidates.begin(), candidates.end(), node) != candidates.end();
}

void add_candidates(std::vector<std::string>& out, const WarmPool& pool,
                    const std::vector<std::string>& candidates) {
  for (const std::string& node : pool.nodes) {
    if (is_candidate(candidates, node)) out.push_back(node);
  }
}

}  // namespace

NodeAdvice advise_placement(const WarmPoolRegistry& registry, const JobToStart& job,
                            const std::vector<std::string>& candidates, Time now) {
  NodeAdvice advice;
  const WarmPool* chosen = registry.match(job, now, &candidates);
  if (chosen != nullptr) {
    advice.pool = chosen->id;
    add_candidates(advice.prefer, *chosen, candidates);
  }
  const bool reserve = registry.settings().mode == WarmPoolMode::Reserve;
  for (const auto& [id, pool] : registry.pools()) {
    if (!pool.waiting() || pool.expires_at <= now || &pool == chosen) continue;
    const bool hard = reserve && !matches(pool, job);
    add_candidates(hard ? advice.forbid : advice.avoid, pool, candidates);
  }
  std::sort(advice.prefer.begin(), advice.prefer.end());
  std::sort(advice.avoid.begin(), advice.avoid.end());
  std::sort(advice.forbid.begin(), advice.forbid.end());
  return advice;
}

}  // namespace shareq::warm
