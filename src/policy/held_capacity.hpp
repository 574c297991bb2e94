// What a reserved warm pool holds in the policy's terms, and how long an ended job's node may
// still be completing: the two facts about the controller that slurmctld's plugins
// (plugins/ctld/slurm_jobs.cpp, plugins/ctld/slurm_conf_access.cpp) and the shareq tool
// (tools/cluster_state.cpp) must compute alike for policy::decide() to see the same view.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "policy/job_record.hpp"
#include "policy/jobs.hpp"
#include "policy/policy.hpp"

namespace shareq::policy {

// The capacity that reserved warm pool `pool` holds for its owner's share: counted as the share's
// usage in `partition`'s family exactly as a running job of `account` on those `nodes` with
// `gpus` GPUs (the nodes' configured gres/gpu together) would be (as_running: nodes in a node
// family, GPUs in a GPU family). nullopt when `account` is no share or `partition` is in no
// family: shareq does not govern the pool. (A pool records its owner's account, not the share:
// the pool of a sub-account's job or of an unlisted account is not held for a share; it is
// never charged to the unlisted accounts' share, which may only use idle capacity.)
inline std::optional<HeldCapacity> held_capacity(const Policy& policy, uint64_t pool,
                                                 std::string_view account,
                                                 std::string_view partition, int64_t nodes,
                                                 int64_t gpus) {
  JobRecord record;
  record.account = std::string(account);
  record.partitions = {std::string(partition)};
  record.nodes = nodes;
  record.gpus = gpus;
  const auto share = policy.share_id(account);
  if (!share || policy.is_unlisted(*share)) return std::nullopt;
  const auto r = as_running(policy, record);
  if (!r) return std::nullopt;
  return HeldCapacity{pool, r->share, r->family, r->amount};
}

// How long after a job ended its node may still be COMPLETING without anything being wrong:
// KillWait + 2 x MessageTimeout + 10 s (slurm.conf, in seconds). ControllerView's
// completing_bound_s.
constexpr int64_t job_end_allowance_s(int64_t kill_wait_s, int64_t message_timeout_s) {
  return kill_wait_s + 2 * message_timeout_s + 10;
}

}  // namespace shareq::policy
