#include "slurm_job_info.hpp"

#include <slurm/slurm.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "text.hpp"
#include "tres.hpp"

namespace shareq::tool {
namespace {

std::string str(const char* text) { return text != nullptr ? std::string(text) : std::string(); }

JobState state_of(uint32_t job_state) {
  if ((job_state & JOB_COMPLETING) != 0)
    return JobState::Other;  // its allocation is being released
  switch (job_state & JOB_STATE_BASE) {
    case JOB_PENDING:
      return JobState::Pending;
    case JOB_RUNNING:
      return JobState::Running;
    case JOB_SUSPENDED:
      return JobState::Suspended;
    default:
      return JobState::Other;
  }
}

}  // namespace

JobInfo job_info_of(const slurm_job_info_t& job) {
  JobInfo info;
  info.id = job.job_id;
  info.account = str(job.account);
  const std::string partitions = str(job.partition);  // split's views point into it
  for (std::string_view partition : text::split(partitions, ',')) {
    if (!partition.empty()) info.partitions.emplace_back(partition);
  }
  info.state = state_of(job.job_state);
  info.completing = (job.job_state & JOB_COMPLETING) != 0;
  const std::string requested = str(job.tres_req_str);
  const std::string allocated = str(job.tres_alloc_str);
  if (info.state == JobState::Pending) {
    // As the plugins count it (ctld/slurm_jobs.cpp): the node count of the TRES request (the
    // job's minimum), else its node count. num_nodes alone is no substitute: for a pending job
    // slurmctld packs an estimate from the task count, which may exceed the request.
    const int64_t requested_nodes = tres_count(requested, "node");
    info.nodes = std::max<int64_t>(requested_nodes > 0 ? requested_nodes : job.num_nodes, 1);
    info.gpus = tres_count(requested, "gres/gpu");
  } else {
    // As the plugins count it: what the job was allocated, or its request when that is larger.
    info.nodes = job.num_nodes;
    info.gpus = std::max(tres_count(requested, "gres/gpu"), tres_count(allocated, "gres/gpu"));
    info.node_list = str(job.nodes);
  }
  info.admin_comment = str(job.admin_comment);
  info.system_comment = str(job.system_comment);
  info.priority = job.priority;
  info.submit_time = job.submit_time;
  info.start_time = job.start_time;
  info.end_time = job.end_time;
  info.preempt_time = job.preempt_time;
  info.eligible_time = job.eligible_time;
  info.restarts = job.restart_cnt;
  // Slurm keeps nice with NICE_OFFSET added (0 means "none given"); squeue prints it taken off.
  info.nice = job.nice != 0 && job.nice != NO_VAL
                  ? static_cast<int64_t>(job.nice) - static_cast<int64_t>(NICE_OFFSET)
                  : 0;
  return info;
}

}  // namespace shareq::tool
