#include "job_test_hook.hpp"

#include "cons_tres.hpp"

namespace shareq::select {

int job_test(const JobTestArgs& a) {
  return cons_tres().ops().job_test(a.job_ptr, a.node_bitmap, a.min_nodes, a.max_nodes, a.req_nodes,
                                    a.mode, a.preemptee_candidates, a.preemptee_job_list,
                                    a.exc_core_bitmap);
}

}  // namespace shareq::select
