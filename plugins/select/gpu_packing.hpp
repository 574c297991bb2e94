// GPU packing in front of cons_tres (policy/gpu_packing.hpp): the nodes a job that runs on one
// node is offered first, so that it leaves the fewest GPUs free.
#pragma once

#include <vector>

#include "job_test_hook.hpp"

namespace shareq::select {

// Node indices (node_record_table_ptr) among a.node_bitmap's with the fewest GPUs left free
// after the job; empty when packing does not apply: not a one-node GPU job, required nodes,
// contiguous nodes, --spread-job, least-loaded-node selection (partition LLN or CR_LLN), or no
// node to prefer. Reads the nodes' GRES state: slurmctld's node read lock, held by every caller
// of select_p_job_test.
std::vector<int> gpu_packing_nodes(const JobTestArgs& a);

}  // namespace shareq::select
