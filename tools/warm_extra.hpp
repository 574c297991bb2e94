// shareq pools: the warm pools as slurmctld shows them on the nodes' Extra field, which
// plugins/ctld/warm_pools.cpp writes on each warm node:
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,until=YYYY-MM-DDTHH:MM:SS,key=KEY   (waiting)
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,job=JOBID,key=KEY                   (in-use)
// KEY is the pool's match key for people ("image=sha256:0a1b..,account=..,user=..", or "any")
// and is the rest of the line, commas included. The time is slurmctld's local time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_data.hpp"
#include "result.hpp"
#include "warm/pool.hpp"

namespace shareq::tool {

struct WarmExtra {
  std::string pool;    // "wp-3"
  std::string status;  // available, in-use, reused, ... (warm::status_name)
  std::string user;
  std::string account;
  std::optional<std::string> until;  // as written (local ISO time), when waiting
  std::optional<uint32_t> job;       // the job using it, when InUse
  std::string key;
};

// Precondition: none. A text without the "shareq:" prefix is not ours (an admin's Extra):
// nullopt. A "shareq:" text of another shape is an Error naming the node's Extra.
std::optional<Result<WarmExtra>> parse_warm_extra(std::string_view extra);

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
