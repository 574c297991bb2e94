#include "reclaim_claims.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "log.hpp"
#include "policy/claims_format.hpp"
#include "slurm_conf_access.hpp"
#include "state_file.hpp"
#include "state_writer.hpp"

namespace shareq::ctld {
namespace {

constexpr const char* kStateFile = "shareq_reclaim_claims";

std::mutex g_mutex;
bool g_loaded = false;                     // the state file was read (once per process)
std::vector<policy::NamedClaim> g_claims;  // at most one per job
uint64_t g_version = 1;                    // +1 for every change of g_claims

// Cached decision snapshot and what it was built from.
std::shared_ptr<const RunningSnapshot> g_base;
uint64_t g_built_version = 0;
std::shared_ptr<const RunningSnapshot> g_decision;
// Decision snapshots get generations of their own, far from the registry's, so that a cache
// keyed by generation (preempt/shareq's victim order) never mistakes one for another.
uint64_t g_generation = uint64_t{1} << 62;

// Reads the claims a previous slurmctld left, once. g_mutex held.
void load_locked() {
  if (g_loaded) return;
  g_loaded = true;
  const std::string path = state_file_path(kStateFile);
  if (path.empty()) return;
  const std::optional<std::string> text = read_state_file(path);
  if (!text) return;  // none saved
  auto parsed = policy::parse_claims(*text);
  if (!parsed) {
    log_error("reclaim: %s: %s; the jobs that were waiting for their victims are decided afresh",
              path.c_str(), parsed.error().to_string().c_str());
    return;
  }
  g_claims = std::move(parsed).value();
  ++g_version;
  if (!g_claims.empty()) {
    log_info("reclaim: restored %zu reclaim(s) in flight from %s", g_claims.size(), path.c_str());
  }
}

// Saves the claims after a change, on the state writer's thread (g_mutex held here, and often
// slurmctld's job write lock). No fsync: claims matter across a restart of slurmctld, not of the
// machine (whose jobs are then decided afresh anyway).
void save_locked() {
  ++g_version;
  const std::string path = state_file_path(kStateFile);
  if (path.empty()) return;
  save_state_later(path, policy::format_claims(g_claims), Durability::ProcessCrash, "reclaim");
}

int64_t claim_lifetime_s(const LoadedConfig* config) {
  const int64_t grace = config != nullptr ? config->policy.preempt_grace_time_s : 0;
  return std::max<int64_t>(grace, 0) + job_end_allowance_s();
}

// Drops the claims whose victims have had all the time they can take. g_mutex held.
void expire_locked(int64_t now, const LoadedConfig* config) {
  load_locked();
  const int64_t lifetime = claim_lifetime_s(config);
  const size_t before = g_claims.size();
  std::erase_if(g_claims, [&](const policy::NamedClaim& c) {
    if (now - c.since <= lifetime) return false;
    log_info(
        "reclaim: JobId=%u has not started %lld s after preempting its victims; it is "
        "decided afresh",
        c.job, static_cast<long long>(now - c.since));
    return true;
  });
  if (g_claims.size() != before) save_locked();
}

// The claims in `policy`'s ids; those whose share or family it does not have are left out.
std::vector<policy::ReclaimClaim> with_ids(const policy::Policy& policy) {
  std::vector<policy::ReclaimClaim> out;
  for (const policy::NamedClaim& c : g_claims) {
    const auto share = policy.share_id(c.share);
    const auto family = policy.family_id(c.family);
    if (!share || !family) continue;
    out.push_back({c.job, *share, *family, c.amount, c.priority, c.since, c.victims});
  }
  return out;
}

}  // namespace

void claim_recorded(const policy::Policy& policy, const policy::ReclaimClaim& claim) {
  policy::NamedClaim named{claim.job,
                           policy.share_name(claim.share),
                           policy.family(claim.family).name,
                           claim.amount,
                           claim.priority,
                           claim.since,
                           claim.victims};
  const std::lock_guard<std::mutex> lock(g_mutex);
  load_locked();
  std::erase_if(g_claims, [&](const policy::NamedClaim& c) { return c.job == named.job; });
  g_claims.push_back(std::move(named));
  save_locked();
}

void claim_ended(uint32_t job_id) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  load_locked();
  if (std::erase_if(g_claims, [&](const policy::NamedClaim& c) { return c.job == job_id; })) {
    save_locked();
  }
}

void claims_keep_pending(std::vector<uint32_t> pending) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  load_locked();
  if (g_claims.empty()) return;  // the common case: no sort on every re-ranking
  std::sort(pending.begin(), pending.end());
  const size_t before = g_claims.size();
  std::erase_if(g_claims, [&](const policy::NamedClaim& c) {
    if (std::binary_search(pending.begin(), pending.end(), c.job)) return false;
    log_info(
        "reclaim: JobId=%u is no longer pending; the capacity it reclaimed is no longer "
        "counted as its own",
        c.job);
    return true;
  });
  if (g_claims.size() != before) save_locked();
}

bool reclaim_in_flight(uint32_t job_id, int64_t now) {
  const auto config = current_config();
  const std::lock_guard<std::mutex> lock(g_mutex);
  expire_locked(now, config.get());
  return std::any_of(g_claims.begin(), g_claims.end(),
                     [&](const policy::NamedClaim& c) { return c.job == job_id; });
}

uint64_t claims_version() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  load_locked();
  return g_version;
}

std::shared_ptr<const RunningSnapshot> decision_snapshot(
    const std::shared_ptr<const LoadedConfig>& config, int64_t now) {
  auto base = running_snapshot(config);
  const std::lock_guard<std::mutex> lock(g_mutex);
  expire_locked(now, config.get());
  if (g_claims.empty() || !config) return base;
  if (g_decision && g_base == base && g_built_version == g_version) return g_decision;
  const std::vector<policy::ReclaimClaim> claims = with_ids(config->policy);
  g_decision = base->with_running(policy::with_claims(base->running(), claims), ++g_generation);
  g_base = std::move(base);
  g_built_version = g_version;
  return g_decision;
}

}  // namespace shareq::ctld
