#include "slurm_client.hpp"

#include <pwd.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>

#include "node_drain.hpp"
#include "policy/held_capacity.hpp"
#include "slurm_api_compat.h"
#include "slurm_job_info.hpp"
#include "text.hpp"
#include "tres.hpp"

// Exported by libslurm and used by squeue and scontrol for the same columns, but not declared in
// <slurm/slurm.h> (the reason's name: slurm_api_compat.h).
extern "C" char* slurm_job_state_string(uint32_t inx);

namespace shareq::tool {
namespace {

std::string str(const char* text) { return text != nullptr ? std::string(text) : std::string(); }

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { slurm_init(nullptr); });  // reads $SLURM_CONF or the default
}

Error slurm_error(const std::string& what) {
  const int code = errno;  // libslurm's API sets errno (slurm_get_errno() is gone in 24.11)
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

// A Slurm host list ("p4n[1-3],p5n1") one name each, as libslurm expands it.
std::vector<std::string> expand_hosts(const char* list) {
  std::vector<std::string> names;
  if (list == nullptr || list[0] == '\0') return names;
  // hostlist_t is a pointer in 22.05 and the struct itself from 23.11: auto* fits both.
  auto* hosts = slurm_hostlist_create(list);
  if (hosts == nullptr) return names;
  while (char* host = slurm_hostlist_shift(hosts)) {
    names.emplace_back(host);
    free(host);  // NOLINT(cppcoreguidelines-no-malloc): libslurm's malloc'd string
  }
  slurm_hostlist_destroy(hosts);
  return names;
}

// squeue's %r: the plugin's words when it set them, else Slurm's reason name.
std::string reason_of(const slurm_job_info_t& job) {
  if (job.state_desc != nullptr && job.state_desc[0] != '\0') return job.state_desc;
  return str(shareq_slurm_job_reason_string(static_cast<enum job_state_reason>(job.state_reason)));
}

// job_info_of's plain fields, plus what needs libslurm or the system.
JobInfo job_of(const slurm_job_info_t& job) {
  JobInfo info = job_info_of(job);
  info.user = user_name(job.user_id);
  info.state_name = str(slurm_job_state_string(job.job_state));
  if (info.state != JobState::Pending) info.node_names = expand_hosts(job.nodes);
  info.reason = reason_of(job);
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

Result<std::vector<ArrayRecord>> load_array_records(uint32_t array_job_id) {
  init_once();
  job_info_msg_t* msg = nullptr;
  // slurm_load_job exists in every supported release (slurm_xlate_job_id is gone in 24.11);
  // for an array's job id it returns every record of the array.
  if (slurm_load_job(&msg, array_job_id, SHOW_ALL) != SLURM_SUCCESS || msg == nullptr) {
    if (errno == ESLURM_INVALID_JOB_ID) return std::vector<ArrayRecord>{};
    return slurm_error("job " + std::to_string(array_job_id));
  }
  std::vector<ArrayRecord> records;
  for (uint32_t i = 0; i < msg->record_count; ++i) {
    const slurm_job_info_t& job = msg->job_array[i];
    ArrayRecord record;
    record.job_id = job.job_id;
    record.array_job_id = job.array_job_id;
    if (job.array_task_id != NO_VAL) record.task = job.array_task_id;
    record.pending_tasks = str(job.array_task_str);
    records.push_back(std::move(record));
  }
  slurm_free_job_info_msg(msg);
  return records;
}

Result<std::vector<NodeInfo>> load_nodes() {
  init_once();
  node_info_msg_t* msg = nullptr;
  if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) return slurm_error("nodes");
  partition_info_msg_t* parts = nullptr;
  if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
    slurm_free_node_info_msg(msg);
    return slurm_error("partitions");
  }
  slurm_populate_node_partitions(msg, parts);  // each node's partitions, as scontrol shows them
  std::vector<NodeInfo> nodes;
  nodes.reserve(msg->record_count);
  for (uint32_t i = 0; i < msg->record_count; ++i) {
    const node_info_t& node = msg->node_array[i];
    if (node.name == nullptr) continue;  // a hole in the table (future / cloud nodes)
    NodeInfo info{node.name, str(node.extra), {}, 0, false};
    const std::string partitions = str(node.partitions);  // split's views point into it
    for (std::string_view partition : text::split(partitions, ',')) {
      if (!partition.empty()) info.partitions.emplace_back(partition);
    }
    info.gpus = tres_count(str(node.tres_fmt_str), "gres/gpu");
    info.completing = (node.node_state & NODE_STATE_COMPLETING) != 0;
    nodes.push_back(std::move(info));
  }
  slurm_free_partition_info_msg(parts);
  slurm_free_node_info_msg(msg);
  return nodes;
}

Result<int64_t> load_job_end_allowance() {
  init_once();
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) return slurm_error("the configuration");
  const int64_t allowance = policy::job_end_allowance_s(conf->kill_wait, conf->msg_timeout);
  shareq_slurm_free_ctl_conf(conf);
  return allowance;
}

Result<std::vector<AccountParent>> load_account_tree() {
  init_once();
  uint16_t flags = 0;
  void* db = slurmdb_connection_get(&flags);
  if (db == nullptr) return slurm_error("the association tree from slurmdbd");
  slurmdb_assoc_cond_t cond{};  // every association, with its parent's account
  auto* assocs = slurmdb_associations_get(db, &cond);
  if (assocs == nullptr) {
    Error error = slurm_error("the association tree from slurmdbd");
    slurmdb_connection_close(&db);
    return error;
  }
  std::vector<AccountParent> tree;
  auto* it = slurm_list_iterator_create(assocs);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(slurm_list_next(it))) {
    if (assoc->user != nullptr || assoc->acct == nullptr) continue;
    const std::string parent = str(assoc->parent_acct);
    tree.emplace_back(str(assoc->acct), parent == "root" ? "" : parent);
  }
  slurm_list_iterator_destroy(it);
  slurm_list_destroy(assocs);
  slurmdb_connection_close(&db);
  return tree;
}

Result<ClusterData> load_cluster_data() {
  ClusterData data;
  Result<std::vector<JobInfo>> jobs = load_jobs();
  if (!jobs) return jobs.error();
  Result<std::vector<NodeInfo>> nodes = load_nodes();
  if (!nodes) return nodes.error();
  Result<int64_t> allowance = load_job_end_allowance();
  if (!allowance) return allowance.error();
  data.jobs = std::move(jobs).value();
  data.nodes = std::move(nodes).value();
  data.job_end_allowance_s = allowance.value();
  data.now = static_cast<int64_t>(std::time(nullptr));
  return data;
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
    const int code = errno;
    return Error{"slurmctld", "cannot set Extra on " + nodes + ": " + str(slurm_strerror(code)) +
                                  " (ending a pool needs root or SlurmUser)"};
  }
  return true;
}

Result<std::vector<std::string>> load_node_partitions(const std::string& node) {
  // The whole table: slurm_populate_node_partitions maps partitions to nodes by their index in
  // slurmctld's table, so a one-node answer (slurm_load_node_single) would get another node's.
  Result<std::vector<NodeInfo>> nodes = load_nodes();
  if (!nodes) return nodes.error();
  for (const NodeInfo& info : nodes.value()) {
    if (info.name == node) return info.partitions;
  }
  return Error{"slurmctld", "knows no node " + text::quote(node) +
                                " (is it this node's NodeName? SLURMD_NODENAME names it)"};
}

Result<bool> drain_node(const std::string& node, const std::string& reason) {
  init_once();
  if (const int code = request_node_drain(node, reason); code != 0) {
    return Error{"slurmctld", "cannot drain " + node + ": " + str(slurm_strerror(code)) +
                                  " (draining needs root or SlurmUser)"};
  }
  return true;
}

}  // namespace shareq::tool
