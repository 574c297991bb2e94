// The nodes of a job record, by name.
#pragma once

#include <string>
#include <vector>

#include "ctld_api.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

// The names of the nodes the job holds (its node_bitmap), in node table order. Job lock and
// node read lock held.
SHAREQ_CTLD_API std::vector<std::string> nodes_of_job(struct job_record* job);

}  // namespace shareq::ctld
