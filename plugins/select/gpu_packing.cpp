#include "gpu_packing.hpp"

#include <cstring>

#include "policy/gpu_packing.hpp"
#include "slurm_jobs.hpp"

extern "C" {
#if __has_include("src/interfaces/gres.h")
#include "src/interfaces/gres.h"  // 23.02+
#else
#include "src/common/gres.h"
#endif
}

#pragma weak node_record_count  // libslurmfull only; clients load this plugin through libslurm
#pragma weak node_record_table_ptr

namespace shareq::select {
namespace {

// What Slurm's own node-selection options say about packing: spreading or least-loaded nodes
// are the admin's or the user's choice, and a job with required or contiguous nodes leaves
// cons_tres nothing to choose.
bool packing_applies(const JobTestArgs& a) {
  const job_record_t* job = a.job_ptr;
  if (job == nullptr || job->details == nullptr || a.min_nodes > 1 || a.req_nodes > 1) {
    return false;
  }
  if (job->details->req_node_bitmap != nullptr || job->details->contiguous) return false;
  if ((job->bit_flags & SPREAD_JOB) != 0) return false;
  if ((slurm_conf.select_type_param & CR_LLN) != 0) return false;
  return job->part_ptr == nullptr || (job->part_ptr->flags & PART_FLAG_LLN) == 0;
}

// GPUs on the node not allocated to a job; -1 when the node has no GPU.
int64_t free_gpus(const node_record_t* node) {
  if (node->gres_list == nullptr) return -1;
  int64_t free = -1;
  list_itr_t* it = list_iterator_create(node->gres_list);
  while (auto* gres = static_cast<gres_state_t*>(list_next(it))) {
    if (gres->gres_name == nullptr || std::strcmp(gres->gres_name, "gpu") != 0) continue;
    const auto* state = static_cast<const gres_node_state_t*>(gres->gres_data);
    if (state != nullptr && state->gres_cnt_avail >= state->gres_cnt_alloc) {
      free = static_cast<int64_t>(state->gres_cnt_avail - state->gres_cnt_alloc);
    }
    break;
  }
  list_iterator_destroy(it);
  return free;
}

}  // namespace

std::vector<int> gpu_packing_nodes(const JobTestArgs& a) {
  if (!packing_applies(a)) return {};
  const auto gpus = static_cast<int64_t>(ctld::requested_gpus(a.job_ptr));
  if (gpus <= 0) return {};
  std::vector<policy::NodeGpus> nodes;
  for (int i = 0; i < node_record_count; ++i) {
    const node_record_t* node = node_record_table_ptr[i];
    if (node == nullptr || !bit_test(a.node_bitmap, i)) continue;
    const int64_t free = free_gpus(node);
    if (free >= 0) nodes.push_back({i, free});
  }
  return policy::best_fit_nodes(nodes, gpus);
}

}  // namespace shareq::select
