#include "failed_runs.hpp"

#include <map>
#include <string>
#include <vector>

#include "controller_state.hpp"
#include "job_comments.hpp"
#include "job_nodes.hpp"
#include "log.hpp"
#include "policy/failed_runs.hpp"
#include "slurmctld_headers.hpp"

namespace shareq::ctld {
namespace {

using Remembered = FailedRunsPart::Remembered;

FailedRunsPart& part() { return controller_state().failed_runs; }

// Forgets runs that ended too long ago to be settled. Its mutex held.
void prune_locked(FailedRunsPart& runs, int64_t now) {
  std::erase_if(runs.ended, [&](const auto& entry) {
    return !policy::failure_still_possible(entry.second.ended_at, now);
  });
}

// What the controller sees of the run's nodes now (node read lock held).
std::vector<policy::EndedRunNode> node_facts(const std::vector<std::string>& names) {
  std::vector<policy::EndedRunNode> nodes;
  for (const std::string& name : names) {
    policy::EndedRunNode n;
    n.name = name;
    if (node_record_t* node = find_node_record(const_cast<char*>(name.c_str()))) {
      n.down = IS_NODE_DOWN(node) || IS_NODE_FAIL(node) || IS_NODE_NO_RESPOND(node);
      n.drained = IS_NODE_DRAIN(node);
      n.reason = node->reason != nullptr ? node->reason : "";
      n.reason_time = node->reason_time;
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// The nodes the job asked for by name (-w), of `names`.
std::vector<std::string> requested_of(const job_details_t* details,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> requested;
  if (details->req_node_bitmap == nullptr) return requested;
  for (const std::string& name : names) {
    const node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
    if (node != nullptr && bit_test(details->req_node_bitmap, node->index) != 0) {
      requested.push_back(name);
    }
  }
  return requested;
}

// Adds the run's failed nodes to the job's excluded nodes (policy::nodes_to_exclude).
void exclude(JobRecord* job, const policy::FailedRun& failed) {
  job_details_t* details = job->details;
  if (details == nullptr) return;
  bool changed = false;
  for (const std::string& name :
       policy::nodes_to_exclude(failed, requested_of(details, failed.nodes))) {
    node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
    if (node == nullptr) continue;
    if (details->exc_node_bitmap == nullptr)
      details->exc_node_bitmap = bit_alloc(node_record_count);
    bit_set(details->exc_node_bitmap, node->index);
    changed = true;
  }
  if (!changed) return;
  xfree(details->exc_nodes);
  details->exc_nodes = bitmap2node_name(details->exc_node_bitmap);
}

void hold(JobRecord* job, const std::string& reason, int64_t now) {
  job->priority = 0;
  job->state_reason = WAIT_HELD_USER;  // as Slurm's own "launch failed requeued held"
  xfree(job->state_desc);
  job->state_desc = xstrdup(reason.c_str());
  last_job_update = now;
}

void settle(const policy::Policy& policy, JobRecord* job, const policy::FailedRun& failed,
            int64_t now) {
  append_admin_word(job, policy::failed_run_word(failed));
  exclude(job, failed);
  const std::vector<policy::FailedRun> runs =
      policy::failed_runs(job->admin_comment != nullptr ? job->admin_comment : "");
  std::string note =
      "shareq: run " + std::to_string(failed.requeue) + " ended: " + policy::failure_words(failed);
  if (policy::held_after_failures(policy, runs.size())) {
    const std::string reason = policy::held_after_failures_reason(policy, runs, job->job_id);
    hold(job, reason, now);
    note += "; held";
    log_info("JobId=%u %s", job->job_id, reason.c_str());
  } else {
    note += "; requeued, may fall back at once";
    log_info(
        "JobId=%u requeued after %s: it may start in a Fallback= family at once and not "
        "on the failed nodes",
        job->job_id, policy::failure_words(failed).c_str());
  }
  append_system_comment(job, note);
  last_job_update = now;
}

}  // namespace

void run_ended(JobRecord* job, int64_t now) {
  if (job == nullptr || job->details == nullptr) return;
  const bool node_fail = (job->job_state & JOB_STATE_BASE) == JOB_NODE_FAIL;
  FailedRunsPart& runs = part();
  if (!node_fail && (job->job_state & JOB_REQUEUE) == 0) {
    const RankedLock lock(runs.mutex);
    runs.ended.erase(job->job_id);
    return;
  }
  Remembered run;
  run.ended_at = now;
  run.start = job->start_time;
  run.node_fail = node_fail;
  run.preempted = policy::preempted_in_run(job->admin_comment != nullptr ? job->admin_comment : "",
                                           job->start_time);
  run.nodes = nodes_of_job(job);
  const RankedLock lock(runs.mutex);
  prune_locked(runs, now);
  runs.ended[job->job_id] = std::move(run);
}

void settle_failed_runs(const LoadedConfig& config, int64_t now) {
  std::map<uint32_t, Remembered> ended;
  {
    FailedRunsPart& runs = part();
    const RankedLock lock(runs.mutex);
    if (runs.ended.empty()) return;
    prune_locked(runs, now);
    ended = runs.ended;
  }
  std::vector<uint32_t> settled;
  for (const auto& [job_id, run] : ended) {
    JobRecord* job = find_job_record(job_id);
    if (job == nullptr || !IS_JOB_PENDING(job)) continue;
    // Slurm has counted the requeue by now (before job_fini on a requeue, after it on a
    // NODE_FAIL): the run after the failed one is the job's current restart count.
    const policy::EndedRun run_now{run.node_fail, run.preempted, run.start, job->restart_cnt,
                                   node_facts(run.nodes)};
    const auto failed = policy::failure_of(run_now);
    if (!failed) continue;  // not (yet) known; forgotten by prune_locked in time
    settle(config.policy, job, *failed, now);
    settled.push_back(job_id);
  }
  if (settled.empty()) return;
  FailedRunsPart& runs = part();
  const RankedLock lock(runs.mutex);
  for (const uint32_t job_id : settled) runs.ended.erase(job_id);
}

}  // namespace shareq::ctld
