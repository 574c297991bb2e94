#include "job_nodes.hpp"

#include "slurmctld_headers.hpp"

namespace shareq::ctld {

std::vector<std::string> nodes_of_job(job_record_t* job) {
  std::vector<std::string> nodes;
  if (job->node_bitmap == nullptr) return nodes;
  for (int i = 0; i < node_record_count; ++i) {
    if (bit_test(job->node_bitmap, i) != 0 && node_record_table_ptr[i] != nullptr) {
      nodes.emplace_back(node_record_table_ptr[i]->name);
    }
  }
  return nodes;
}

}  // namespace shareq::ctld
