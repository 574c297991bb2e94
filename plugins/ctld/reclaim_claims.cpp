#include "reclaim_claims.hpp"

#include <algorithm>
#include <vector>

#include "controller_state.hpp"
#include "log.hpp"
#include "policy/claims_format.hpp"
#include "slurm_conf_access.hpp"
#include "state_file.hpp"
#include "state_writer.hpp"

namespace shareq::ctld {
namespace {

constexpr const char* kStateFile = "shareq_reclaim_claims";

// Reads the claims a previous slurmctld left, once. Its mutex held.
void load_locked(ClaimsPart& c) {
  if (c.loaded) return;
  c.loaded = true;
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
  c.claims = std::move(parsed).value();
  ++c.version;
  if (!c.claims.empty()) {
    log_info("reclaim: restored %zu reclaim(s) in flight from %s", c.claims.size(), path.c_str());
  }
}

// Saves the claims after a change, on the state writer's thread (its mutex held here, and often
// slurmctld's job write lock). No fsync: claims matter across a restart of slurmctld, not of the
// machine (whose jobs are then decided afresh anyway).
void save_locked(ClaimsPart& c) {
  ++c.version;
  const std::string path = state_file_path(kStateFile);
  if (path.empty()) return;
  save_state_later(path, policy::format_claims(c.claims), Durability::ProcessCrash, "reclaim");
}

int64_t claim_lifetime_s(const LoadedConfig* config) {
  const int64_t grace = config != nullptr ? config->policy.preempt_grace_time_s : 0;
  return policy::claim_lifetime_s(grace, job_end_allowance_s());
}

// Drops the claims whose victims have had all the time they can take. Its mutex held.
void expire_locked(ClaimsPart& c, int64_t now, const LoadedConfig* config) {
  load_locked(c);
  const int64_t lifetime = claim_lifetime_s(config);
  const size_t before = c.claims.size();
  std::erase_if(c.claims, [&](const policy::NamedClaim& c) {
    if (now - c.since <= lifetime) return false;
    log_info(
        "reclaim: JobId=%u has not started %lld s after preempting its victims; it is "
        "decided afresh",
        c.job, static_cast<long long>(now - c.since));
    return true;
  });
  if (c.claims.size() != before) save_locked(c);
}

// The claims in `policy`'s ids; those whose share or family it does not have are left out.
std::vector<policy::ReclaimClaim> with_ids(const ClaimsPart& c, const policy::Policy& policy) {
  std::vector<policy::ReclaimClaim> out;
  for (const policy::NamedClaim& c : c.claims) {
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
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  load_locked(c);
  std::erase_if(c.claims, [&](const policy::NamedClaim& c) { return c.job == named.job; });
  c.claims.push_back(std::move(named));
  save_locked(c);
}

void claim_ended(uint32_t job_id) {
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  load_locked(c);
  if (std::erase_if(c.claims, [&](const policy::NamedClaim& c) { return c.job == job_id; })) {
    save_locked(c);
  }
}

void claims_unload() {
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  flush_state_saves();  // under the mutex, under which saves are queued: none comes in between
  c.loaded = false;
  c.claims.clear();
  ++c.version;
}

void claims_keep_pending(std::vector<uint32_t> pending) {
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  load_locked(c);
  if (c.claims.empty()) return;  // the common case: no sort on every re-ranking
  std::sort(pending.begin(), pending.end());
  const size_t before = c.claims.size();
  std::erase_if(c.claims, [&](const policy::NamedClaim& c) {
    if (std::binary_search(pending.begin(), pending.end(), c.job)) return false;
    log_info(
        "reclaim: JobId=%u is no longer pending; the capacity it reclaimed is no longer "
        "counted as its own",
        c.job);
    return true;
  });
  if (c.claims.size() != before) save_locked(c);
}

bool reclaim_in_flight(uint32_t job_id, int64_t now) {
  const auto config = current_config();
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  expire_locked(c, now, config.get());
  return std::any_of(c.claims.begin(), c.claims.end(),
                     [&](const policy::NamedClaim& c) { return c.job == job_id; });
}

bool claim_victims_running(uint32_t job_id) {
  std::vector<policy::JobId> victims;
  {
    ClaimsPart& c = controller_state().claims;
    const RankedLock lock(c.mutex);
    load_locked(c);
    const auto claim = std::find_if(c.claims.begin(), c.claims.end(),
                                    [&](const policy::NamedClaim& c) { return c.job == job_id; });
    if (claim == c.claims.end()) return false;
    victims = claim->victims;
  }
  // The registry's mutex is taken after the claims' is released: no order between the two.
  return std::any_of(victims.begin(), victims.end(), job_holds_allocation);
}

uint64_t claims_version() {
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  load_locked(c);
  return c.version;
}

std::shared_ptr<const RunningSnapshot> decision_snapshot(
    const std::shared_ptr<const LoadedConfig>& config, int64_t now) {
  auto base = running_snapshot(config);
  ClaimsPart& c = controller_state().claims;
  const RankedLock lock(c.mutex);
  expire_locked(c, now, config.get());
  if (c.claims.empty() || !config) return base;
  if (c.decision && c.base == base && c.built_version == c.version) return c.decision;
  const std::vector<policy::ReclaimClaim> claims = with_ids(c, config->policy);
  c.decision = base->with_running(policy::with_claims(base->running(), claims), ++c.generation);
  c.base = std::move(base);
  c.built_version = c.version;
  return c.decision;
}

}  // namespace shareq::ctld
