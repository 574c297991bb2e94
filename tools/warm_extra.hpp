// shareq pools: the warm pools as slurmctld shows them on the nodes' Extra field, which
// plugins/ctld/warm_pools.cpp writes on each warm node:
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,until=EPOCH,key=KEY   (waiting)
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,job=JOBID,key=KEY     (in-use)
// The format, its one writer and its one parser are in the core (warm/extra_format.hpp), with
// the older until=YYYY-MM-DDTHH:MM:SS (slurmctld's local time), which is read in this process's
// local time zone. The tables show times in local time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_data.hpp"
#include "result.hpp"
#include "warm/extra_format.hpp"
#include "warm/pool.hpp"

namespace shareq::tool {

// One node's Extra, parsed (warm::NodeExtra: pool, status, user, account, until or
// until_local or job, key).
using WarmExtra = warm::NodeExtra;

// Precondition: none. A text without the "shareq:" prefix is not ours (an admin's Extra):
// nullopt. A "shareq:" text of another shape is an Error naming the node's Extra.
inline std::optional<Result<WarmExtra>> parse_warm_extra(std::string_view extra) {
  return warm::parse_node_extra(extra);
}

// The pool's deadline in epoch seconds: `until`, or `until_local` read in this process's local
// time zone; nullopt for a pool in use (or an old-form time that does not exist here).
std::optional<int64_t> until_epoch(const WarmExtra& pool);

struct WarmPoolRow {
  WarmExtra pool;
  std::vector<std::string> nodes;  // in node-table order
};

struct WarmPools {
  std::vector<WarmPoolRow> pools;     // by pool number (wp-2 before wp-10)
  std::vector<std::string> problems;  // "node p4n1: Extra ...: ..." for unreadable lines
};

// Groups the nodes by the pool their Extra names.
WarmPools collect_pools(const std::vector<NodeInfo>& nodes);

using warm::kEndPoolRequest;  // what an admin writes in a warm node's Extra to end its pool
// The pool named `name` ("wp-3"), or nullptr.
const WarmPoolRow* find_pool(const WarmPools& pools, std::string_view name);
// "wp-1, wp-3": every pool's name, in order.
std::string pool_names(const WarmPools& pools);

// One line per pool: POOL STATUS OWNER NODES UNTIL (local time) REMAINING JOB KEY.
std::string format_pools(const WarmPools& pools, int64_t now);
std::string format_pools_json(const WarmPools& pools, int64_t now);

}  // namespace shareq::tool
