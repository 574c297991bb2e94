// Decayed usage per (share, family): what ranks borrowers (ordering.hpp, criterion 2). Kept by
// name so that it survives shareq.conf reloads that renumber shares and families, persisted in
// StateSaveLocation/shareq_usage so that it survives slurmctld restarts. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "config_state.hpp"
#include "ctld_api.hpp"
#include "lock_order.hpp"
#include "policy/jobs.hpp"
#include "policy/ordering.hpp"
#include "usage_file.hpp"

namespace shareq::ctld {

class SHAREQ_CTLD_API UsageStore {
 public:
  // The usage in `config`'s ids. Cheap when nothing changed since the last call.
  std::shared_ptr<const policy::DecayedUsage> values(const LoadedConfig& config);

  // Decays everything from last_ran() to `now` and adds what `running` and `held` (reserved
  // warm pools) used meanwhile; sets last_ran() to `now`. The first call only sets last_ran()
  // (unless load() gave one).
  void accrue(const LoadedConfig& config, std::span<const policy::RunningJob> running, int64_t now,
              int64_t half_life_s, std::span<const policy::HeldCapacity> held = {});

  // Replaces the state with the file's; returns an error sentence when it could not be used
  // (then the state is empty, last_ran unset).
  std::optional<std::string> load(const std::string& path);
  std::optional<std::string> save(const std::string& path) const;

  [[nodiscard]] std::optional<int64_t> last_ran() const;
  [[nodiscard]] UsageFile snapshot() const;

 private:
  using Key = std::pair<std::string, std::string>;  // share, family
  mutable RankedMutex mutex_{LockRank::Usage};
  std::map<Key, double> usage_;
  std::optional<int64_t> last_ran_;
  uint64_t change_ = 0;  // bumped on every change
  // values() cache
  uint64_t cached_change_ = UINT64_MAX;
  uint64_t cached_config_ = 0;
  std::shared_ptr<const policy::DecayedUsage> cached_;
};

// The process-wide store (priority/shareq's): ControllerState::usage.
SHAREQ_CTLD_API UsageStore& usage_store();

}  // namespace shareq::ctld
