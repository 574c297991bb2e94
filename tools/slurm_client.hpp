// The tool's one window on slurmctld (libslurm, the public client API): jobs and nodes as plain
// values. Every failure is an Error naming what could not be loaded and libslurm's reason.
#pragma once

#include <string>
#include <vector>

#include "account_tree.hpp"
#include "cluster_data.hpp"
#include "result.hpp"
#include "why_report.hpp"

namespace shareq::tool {

// Every job slurmctld knows (pending, running, and recently ended).
Result<std::vector<JobInfo>> load_jobs();
// Every record slurmctld holds for job `array_job_id` (each task of an array with a job id of
// its own, and the record of its pending tasks); empty when slurmctld does not know the job.
Result<std::vector<ArrayRecord>> load_array_records(uint32_t array_job_id);
// Every node, with its Extra field, partitions, configured GPUs and whether it is COMPLETING.
Result<std::vector<NodeInfo>> load_nodes();
// slurmctld's KillWait + 2 x MessageTimeout + 10 s (policy::job_end_allowance_s), from the
// configuration it runs with.
Result<int64_t> load_job_end_allowance();
// Jobs, nodes and that allowance, read now: what `shareq status` and `shareq why` build their
// ClusterState from.
Result<ClusterData> load_cluster_data();
// Every account of Slurm's association tree with its parent, from slurmdbd (every cluster's
// accounts; users' associations left out).
Result<std::vector<AccountParent>> load_account_tree();
// Sets the Extra field of `nodes` (a Slurm node list, "p4n[1-2]"); needs an admin (root or
// SlurmUser). The Error names the nodes and libslurm's reason.
Result<bool> set_node_extra(const std::string& nodes, const std::string& extra);
// The partitions of one node, as scontrol shows them; the Error names the node and libslurm's
// reason (an unknown name: slurmctld has no node of that name).
Result<std::vector<std::string>> load_node_partitions(const std::string& node);
// Drains `node` with `reason` (State=DRAIN, as scontrol update); needs root or SlurmUser.
Result<bool> drain_node(const std::string& node, const std::string& reason);

}  // namespace shareq::tool
