#include "reclaim_claims.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "log.hpp"
#include "slurm_conf_access.hpp"

namespace shareq::ctld {
namespace {

std::mutex g_mutex;
std::vector<policy::ReclaimClaim> g_claims;  // at most one per job
uint64_t g_version = 1;                      // +1 for every change of g_claims

// Cached decision snapshot and what it was built from.
std::shared_ptr<const RunningSnapshot> g_base;
uint64_t g_built_version = 0;
std::shared_ptr<const RunningSnapshot> g_decision;
// Decision snapshots get generations of their own, far from the registry's, so that a cache
// keyed by generation (preempt/shareq's victim order) never mistakes one for another.
uint64_t g_generation = uint64_t{1} << 62;

int64_t claim_lifetime_s(const LoadedConfig* config) {
  const int64_t grace = config != nullptr ? config->policy.preempt_grace_time_s : 0;
  return std::max<int64_t>(grace, 0) + kill_wait_s() + 2 * msg_timeout_s() + 10;
}

// Drops the claims whose victims have had all the time they can take. g_mutex held.
void expire_locked(int64_t now, const LoadedConfig* config) {
  const int64_t lifetime = claim_lifetime_s(config);
  const size_t before = g_claims.size();
  std::erase_if(g_claims, [&](const policy::ReclaimClaim& c) {
    if (now - c.since <= lifetime) return false;
    log_info(
        "reclaim: JobId=%u has not started %lld s after preempting its victims; it is "
        "decided afresh",
        c.job, static_cast<long long>(now - c.since));
    return true;
  });
  if (g_claims.size() != before) ++g_version;
}

}  // namespace

void claim_recorded(policy::ReclaimClaim claim) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  std::erase_if(g_claims, [&](const policy::ReclaimClaim& c) { return c.job == claim.job; });
  g_claims.push_back(std::move(claim));
  ++g_version;
}

void claim_ended(uint32_t job_id) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (std::erase_if(g_claims, [&](const policy::ReclaimClaim& c) { return c.job == job_id; })) {
    ++g_version;
  }
}

bool reclaim_in_flight(uint32_t job_id, int64_t now) {
  const auto config = current_config();
  const std::lock_guard<std::mutex> lock(g_mutex);
  expire_locked(now, config.get());
  return std::any_of(g_claims.begin(), g_claims.end(),
                     [&](const policy::ReclaimClaim& c) { return c.job == job_id; });
}

uint64_t claims_version() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return g_version;
}

std::shared_ptr<const RunningSnapshot> decision_snapshot(
    const std::shared_ptr<const LoadedConfig>& config, int64_t now) {
  auto base = running_snapshot(config);
  const std::lock_guard<std::mutex> lock(g_mutex);
  expire_locked(now, config.get());
  if (g_claims.empty()) return base;
  if (g_decision && g_base == base && g_built_version == g_version) return g_decision;
  g_decision = base->with_running(policy::with_claims(base->running(), g_claims), ++g_generation);
  g_base = std::move(base);
  g_built_version = g_version;
  return g_decision;
}

}  // namespace shareq::ctld
