#include "accounting_client.hpp"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include <cerrno>
#include <mutex>

#include "slurm_api_compat.h"

namespace shareq::exporter {
namespace {

std::string str(const char* text) { return text != nullptr ? std::string(text) : std::string(); }

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { slurm_init(nullptr); });
}

Error slurm_error(const std::string& what) {
  const int code = errno;
  return Error{what, "cannot read: " + str(slurm_strerror(code))};
}

RunEnd run_end(uint32_t state) {
  if ((state & JOB_REQUEUE) != 0) return RunEnd::Requeued;
  switch (state & JOB_STATE_BASE) {
    case JOB_PENDING:
    case JOB_RUNNING:
    case JOB_SUSPENDED:
      return RunEnd::None;
    case JOB_COMPLETE:
      return RunEnd::Completed;
    case JOB_CANCELLED:
      return RunEnd::Cancelled;
    case JOB_FAILED:
    case JOB_OOM:
      return RunEnd::Failed;
    case JOB_TIMEOUT:
    case JOB_DEADLINE:
      return RunEnd::Timeout;
    case JOB_NODE_FAIL:
    case JOB_BOOT_FAIL:
      return RunEnd::NodeFail;
    case JOB_PREEMPTED:
      return RunEnd::Preempted;
    default:
      return RunEnd::Other;
  }
}

JobRun run_of(const slurmdb_job_rec_t& job) {
  JobRun run;
  run.id = job.jobid;
  run.account = str(job.account);
  run.partition = str(job.partition);
  run.admin_comment = str(job.admin_comment);
  run.submit = job.submit;
  // A pending record's time_start is the start the scheduler expects, not one that happened.
  run.start = (job.state & JOB_STATE_BASE) == JOB_PENDING ? 0 : job.start;
  run.end = job.end;
  run.state = run_end(job.state);
  return run;
}

}  // namespace

Result<std::vector<JobRun>> load_job_runs(const std::string& cluster, int64_t from, int64_t to) {
  init_once();
  uint16_t flags = 0;
  void* db = slurmdb_connection_get(&flags);
  if (db == nullptr) return slurm_error("slurmdbd");
  slurmdb_job_cond_t cond{};
  cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC;
  cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;  // as sacct: 0 would keep only jobs without flags
  cond.usage_start = static_cast<time_t>(from);
  cond.usage_end = static_cast<time_t>(to);
  cond.cluster_list = slurm_list_create(nullptr);
  std::string name = cluster;
  slurm_list_append(cond.cluster_list, name.data());
  auto* jobs = slurmdb_jobs_get(db, &cond);
  slurm_list_destroy(cond.cluster_list);
  if (jobs == nullptr) {
    Error error = slurm_error("slurmdbd's job records");
    slurmdb_connection_close(&db);
    return error;
  }
  std::vector<JobRun> runs;
  auto* it = slurm_list_iterator_create(jobs);
  while (auto* job = static_cast<slurmdb_job_rec_t*>(slurm_list_next(it))) {
    runs.push_back(run_of(*job));
  }
  slurm_list_iterator_destroy(it);
  slurm_list_destroy(jobs);
  slurmdb_connection_close(&db);
  return runs;
}

Result<std::string> load_cluster_name() {
  init_once();
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) return slurm_error("slurmctld");
  std::string name = str(conf->cluster_name);
  shareq_slurm_free_ctl_conf(conf);
  return name;
}

}  // namespace shareq::exporter
