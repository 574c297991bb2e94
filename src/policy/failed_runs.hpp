// Runs that ended because a node failed (NODE_FAIL) or because the job's prolog failed on a node
// (Slurm's own "Prolog error" drain, or shareq's hardware check): `MaxFallbackRequeues`.
//
// Slurm requeues such a batch job (a NODE_FAIL always; a prolog failure without a hold only with
// SchedulerParameters=nohold_on_prolog_fail). The controller plugins then write one word per
// failed run in the job's AdminComment, which a user cannot change, which survives a restart of
// slurmctld and which slurmdbd keeps with the next run:
//   shareq-failed:CAUSE,nodes:N1+N2,requeue:K
// CAUSE is node_fail or prolog, N1+N2 the nodes that failed, K Slurm's restart count of the run
// that came after it (the requeued job's). That next run:
//  - may start in its home family's Fallback= families at once (no FallbackDelay);
//  - does not go back to the failed nodes (they join the job's excluded nodes, unless the job
//    asked for them by name);
//  - is held instead, with a reason naming the nodes, once the job has failed more than
//    MaxFallbackRequeues times (0: at its first failure).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/policy.hpp"

namespace shareq::policy {

enum class RunFailure { NodeFail, Prolog };

struct FailedRun {
  RunFailure cause = RunFailure::NodeFail;
  std::vector<std::string> nodes;  // the nodes that failed
  int64_t requeue = 0;             // Slurm's restart count of the run after it
  bool operator==(const FailedRun&) const = default;
};

// What the controller saw of one node of a run that just ended.
struct EndedRunNode {
  std::string name;
  bool down = false;     // DOWN, FAIL or not responding
  bool drained = false;  // DRAIN (draining or drained)
  std::string reason;    // the node's reason, "" when none
  Time reason_time = 0;  // when it was set
};

// A run that ended by NODE_FAIL, or by a requeue that was no preemption (the cause is known
// only once Slurm has drained the node: a prolog failure's requeue comes before the drain).
struct EndedRun {
  bool node_fail = false;  // Slurm ended it JOB_NODE_FAIL
  bool preempted = false;  // the AdminComment names a preemption of this run
  Time start = 0;          // when the run started
  int64_t requeue = 0;     // Slurm's restart count of the run after it
  std::vector<EndedRunNode> nodes;
};

// The failure of `run`, or nullopt while none is known: a NODE_FAIL names the nodes that are
// down (all of the run's when none is: Slurm ended it for a node all the same); a requeue is a
// prolog failure, unless it was preempted, when one of its nodes was drained since the run started
// with Slurm's "Prolog error" or shareq's "shareq: hardware: ..." reason.
std::optional<FailedRun> failure_of(const EndedRun& run);

// Whether the AdminComment names a preemption of the run that started at `start` (the select
// plugin's "shareq-preempted:R,by:N,run:START").
bool preempted_in_run(std::string_view admin_comment, Time start);

// The AdminComment word of a failed run, and every failed run an AdminComment names (words that
// do not decode are skipped).
std::string failed_run_word(const FailedRun& run);
std::vector<FailedRun> failed_runs(std::string_view admin_comment);

// The failed run just before the job's run number `restarts` (Slurm's restart count), if the
// AdminComment names one: that run may fall back at once.
std::optional<FailedRun> failure_before(std::string_view admin_comment, int64_t restarts);

// How long after a run ended its failure may still become known (a prolog failure's drain comes
// after the requeue); a run whose failure is unknown after that was none (an administrator's
// requeue, say) and is forgotten.
inline constexpr Time kFailureKnownWithin = 60;
bool failure_still_possible(Time ended_at, Time now);

// The nodes of `run` that join the job's excluded nodes: every failed node but those the job
// asked for by name (-w), which it waits for instead of becoming a job that can never run.
std::vector<std::string> nodes_to_exclude(const FailedRun& run,
                                          const std::vector<std::string>& requested_nodes);

// Whether a job with these failed runs is held rather than run again: more than
// MaxFallbackRequeues of them.
bool held_after_failures(const Policy& policy, size_t failed_runs);

// "node p5n3 failed (NODE_FAIL)", "its prolog failed on p5n4".
std::string failure_words(const FailedRun& run);

// The reason of a job held after its failures, e.g. "shareq: held after 2 failed runs
// (MaxFallbackRequeues=1): node p5n3 failed (NODE_FAIL); node p4n1 failed (NODE_FAIL); scontrol
// release JOBID runs it again".
std::string held_after_failures_reason(const Policy& policy, const std::vector<FailedRun>& runs,
                                       JobId job);

// The SystemComment of a job that started in fallback family `to` after a failed run, e.g.
// "shareq: fell back from p5 to p4 after node p5n3 failed (NODE_FAIL)".
std::string fallback_after_failure_comment(const Policy& policy, FamilyId home, FamilyId to,
                                           const FailedRun& run);

// The cause's name in the words above and in metrics: "node_fail", "prolog".
std::string_view failure_name(RunFailure cause);

}  // namespace shareq::policy
