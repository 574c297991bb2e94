// The exporter's gauges: what `shareq status` and `shareq pools` say, as metric families. Built
// from the same ClusterState (the scheduler's own view and Ledger) and the same warm pool rows,
// so a value here is the value `shareq status --json` prints. Pure: no Slurm, no clock.
#pragma once

#include <vector>

#include "cluster_state.hpp"
#include "exposition.hpp"
#include "warm_extra.hpp"

namespace shareq::exporter {

// shareq_family_capacity, shareq_share_quota, shareq_share_borrow_limit, shareq_share_lend_limit
// (absent when UNLIMITED), shareq_share_usage, shareq_share_borrowed, shareq_running_jobs,
// shareq_pending_jobs, shareq_oldest_pending_seconds (at state.now()), shareq_warm_pools,
// shareq_warm_pool_nodes.
//
// A pending job's tier is criterion 1 of the core's ranking (tool::within_quota_of, the
// prioritize_queue() priority/shareq runs, as `shareq queue` shows it): within_quota when it fits
// in its share's quota with the share's jobs ahead of it, else borrow. Not read from its Slurm
// priority's within-quota bit: an operator's `scontrol update Priority=P` sets any value there,
// and the core still ranks such a job by its share's quota. A pending job that lists
// several families counts in each, as in `shareq status`. A warm pool's family is that of the
// partitions of its first node (`nodes` gives them); a pool on no family's node is left out.
std::vector<MetricFamily> gauge_metrics(const tool::ClusterState& state,
                                        const tool::WarmPools& pools,
                                        const std::vector<tool::NodeInfo>& nodes);

}  // namespace shareq::exporter
