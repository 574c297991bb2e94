#include "slurm_client.hpp"

#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "text.hpp"
#include "tres.hpp"

// Exported by libslurm and used by squeue and scontrol for the same columns, but not declared in
// <slurm/slurm.h>: declared here with their 22.05 signatures.
extern "C" char* slurm_job_reason_string(enum job_state_reason inx);
extern "C" char* slurm_job_state_string(uint32_t inx);

namespace shareq::tool {
namespace {

std::string str(const char* text) { return text != nullptr ? std::string(text) : std::string(); }

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { slurm_init(nullptr); });  // reads $SLURM_CONF or the default
}

Error slurm_error(const std::string& what) {
  const int code = slurm_get_errno();
  return Error{"slurmctld",
               "cannot load " + what + ": " + str(slurm_strerror(code)) +
                   " (is slurmctld running and SLURM_CONF pointing at its slurm.conf?)"};
}

std::string user_name(uint32_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[1024];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

JobState state_of(uint32_t job_state) {
  if (job_state & JOB_COMPLETING) return JobState::Other;  // its allocation is being released
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

// squeue's %r: the plugin's words when it set them, else Slurm's reason name.
std::string reason_of(const slurm_job_info_t& job) {
  if (job.state_desc != nullptr && job.state_desc[0] != '\0') return job.state_desc;
  return str(slurm_job_reason_string(static_cast<enum job_state_reason>(job.state_reason)));
}

JobInfo job_of(const slurm_job_info_t& job) {
  JobInfo info;
  info.id = job.job_id;
  info.user = user_name(job.user_id);
  info.account = str(job.account);
  for (std::string_view partition : text::split(str(job.partition), ',')) {
    if (!partition.empty()) info.partitions.emplace_back(partition);
  }
  info.state = state_of(job.job_state);
  info.state_name = str(slurm_job_state_string(job.job_state));
  const std::string requested = str(job.tres_req_str);
  const std::string allocated = str(job.tres_alloc_str);
  if (info.state == JobState::Pending) {
    info.nodes = std::max<int64_t>({tres_count(requested, "node"), int64_t{job.num_nodes}, 1});
    info.gpus = tres_count(requested, "gres/gpu");
  } else {
    // As the plugins count it: what the job was allocated, or its request when that is larger.
    info.nodes = job.num_nodes;
    info.gpus = std::max(tres_count(requested, "gres/gpu"), tres_count(allocated, "gres/gpu"));
    info.node_list = str(job.nodes);
  }
  info.admin_comment = str(job.admin_comment);
  info.system_comment = str(job.system_comment);
  info.reason = reason_of(job);
  info.priority = job.priority;
  info.submit_time = job.submit_time;
  info.start_time = job.start_time;
  return info;
}

}  // namespace

Result<std::vector<JobInfo>> load_jobs() {
  init_once();
  job_info_msg_t* msg = nullptr;
  if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) return slurm_error("jobs");
  std::vector<JobInfo> jobs;
  jobs.reserve(msg->record_count);
  for (uint32_t i = 0; i < msg->record_count; ++i) jobs.push_back(job_of(msg->job_array[i]));
  slurm_free_job_info_msg(msg);
  return jobs;
}

Result<std::vector<NodeInfo>> load_nodes() {
  init_once();
  node_info_msg_t* msg = nullptr;
  if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) return slurm_error("nodes");
  std::vector<NodeInfo> nodes;
  nodes.reserve(msg->record_count);
  for (uint32_t i = 0; i < msg->record_count; ++i) {
    const node_info_t& node = msg->node_array[i];
    if (node.name == nullptr) continue;  // a hole in the table (future / cloud nodes)
    nodes.push_back({node.name, str(node.extra)});
  }
  slurm_free_node_info_msg(msg);
  return nodes;
}

Result<bool> set_node_extra(const std::string& nodes, const std::string& extra) {
  init_once();
  update_node_msg_t update;
  slurm_init_update_node_msg(&update);
  std::string names = nodes;
  std::string text = extra;
  update.node_names = names.data();
  update.extra = text.data();
  if (slurm_update_node(&update) != SLURM_SUCCESS) {
    return Error{"slurmctld", "cannot set Extra on " + nodes + ": " +
                                  str(slurm_strerror(slurm_get_errno())) +
                                  " (ending a pool needs root or SlurmUser)"};
  }
  return true;
}

}  // namespace shareq::tool
