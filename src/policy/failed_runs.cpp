#include "policy/failed_runs.hpp"

#include <algorithm>

#include "policy/run_words.hpp"
#include "text.hpp"

namespace shareq::policy {
namespace {

constexpr std::string_view kWordPrefix = "shareq-failed:";
constexpr std::string_view kSlurmProlog = "Prolog error";
constexpr std::string_view kShareqHardware = "shareq: hardware:";
constexpr int64_t kMaxRequeue = 1'000'000'000;

std::optional<RunFailure> cause_named(std::string_view name) {
  if (name == "node_fail") return RunFailure::NodeFail;
  if (name == "prolog") return RunFailure::Prolog;
  return std::nullopt;
}

// A node name as Slurm writes it: nothing that would break the word apart.
bool plain_node_name(std::string_view name) {
  return !name.empty() && text::all_of_charset(name, "-_.");
}

// "node_fail,nodes:a+b,requeue:3" (the word without its prefix).
std::optional<FailedRun> decode(std::string_view fields) {
  const std::vector<std::string_view> parts = text::split(fields, ',');
  if (parts.size() != 3) return std::nullopt;
  const auto cause = cause_named(parts[0]);
  if (!cause || !parts[1].starts_with("nodes:") || !parts[2].starts_with("requeue:")) {
    return std::nullopt;
  }
  FailedRun run;
  run.cause = *cause;
  for (std::string_view node : text::split(parts[1].substr(6), '+')) {
    if (!plain_node_name(node)) return std::nullopt;
    run.nodes.emplace_back(node);
  }
  const text::Number requeue = text::parse_decimal(parts[2].substr(8), kMaxRequeue);
  if (requeue.status != text::NumberStatus::Ok) return std::nullopt;
  run.requeue = static_cast<int64_t>(requeue.value);
  return run;
}

bool prolog_drain(const EndedRunNode& node, Time since) {
  if (!node.drained || node.reason_time < since) return false;
  return node.reason.starts_with(kSlurmProlog) || node.reason.starts_with(kShareqHardware);
}

std::string node_list(const std::vector<std::string>& nodes) {
  return nodes.empty() ? std::string("?") : text::join(nodes, ",");
}

}  // namespace

std::optional<FailedRun> failure_of(const EndedRun& run) {
  FailedRun failed;
  failed.requeue = run.requeue;
  if (run.node_fail) {
    failed.cause = RunFailure::NodeFail;
    for (const EndedRunNode& node : run.nodes) {
      if (node.down) failed.nodes.push_back(node.name);
    }
    if (failed.nodes.empty()) {
      for (const EndedRunNode& node : run.nodes) failed.nodes.push_back(node.name);
    }
    return failed;
  }
  if (run.preempted) return std::nullopt;
  failed.cause = RunFailure::Prolog;
  for (const EndedRunNode& node : run.nodes) {
    if (prolog_drain(node, run.start)) failed.nodes.push_back(node.name);
  }
  if (failed.nodes.empty()) return std::nullopt;
  return failed;
}

bool preempted_in_run(std::string_view admin_comment, Time start) {
  return run_word_fields(admin_comment, kPreemptedWord, start).has_value();
}

std::string_view failure_name(RunFailure cause) {
  return cause == RunFailure::NodeFail ? "node_fail" : "prolog";
}

std::string failed_run_word(const FailedRun& run) {
  std::vector<std::string> nodes;
  for (const std::string& node : run.nodes) {
    if (plain_node_name(node)) nodes.push_back(node);
  }
  return std::string(kWordPrefix) + std::string(failure_name(run.cause)) +
         ",nodes:" + text::join(nodes, "+") + ",requeue:" + std::to_string(run.requeue);
}

std::vector<FailedRun> failed_runs(std::string_view admin_comment) {
  std::vector<FailedRun> runs;
  for (std::string_view word : text::split(admin_comment, ' ')) {
    if (!word.starts_with(kWordPrefix)) continue;
    if (auto run = decode(word.substr(kWordPrefix.size()))) runs.push_back(std::move(*run));
  }
  return runs;
}

std::optional<FailedRun> failure_before(std::string_view admin_comment, int64_t restarts) {
  for (FailedRun& run : failed_runs(admin_comment)) {
    if (run.requeue == restarts) return std::move(run);
  }
  return std::nullopt;
}

bool failure_still_possible(Time ended_at, Time now) {
  return now - ended_at <= kFailureKnownWithin;
}

std::vector<std::string> nodes_to_exclude(const FailedRun& run,
                                          const std::vector<std::string>& requested_nodes) {
  std::vector<std::string> nodes;
  for (const std::string& node : run.nodes) {
    if (std::ranges::find(requested_nodes, node) == requested_nodes.end()) nodes.push_back(node);
  }
  return nodes;
}

bool held_after_failures(const Policy& policy, size_t failed_runs) {
  return failed_runs > static_cast<size_t>(std::max(policy.max_fallback_requeues, 0));
}

std::string failure_words(const FailedRun& run) {
  if (run.cause == RunFailure::NodeFail) {
    return (run.nodes.size() == 1 ? "node " : "nodes ") + node_list(run.nodes) +
           " failed (NODE_FAIL)";
  }
  return "its prolog failed on " + node_list(run.nodes);
}

std::string held_after_failures_reason(const Policy& policy, const std::vector<FailedRun>& runs,
                                       JobId job) {
  std::string text = "shareq: held after " + std::to_string(runs.size()) + " failed run" +
                     (runs.size() == 1 ? "" : "s") +
                     " (MaxFallbackRequeues=" + std::to_string(policy.max_fallback_requeues) +
                     "): ";
  for (size_t i = 0; i < runs.size(); ++i) text += (i > 0 ? "; " : "") + failure_words(runs[i]);
  return text + "; scontrol release " + std::to_string(job) + " runs it again";
}

std::string fallback_after_failure_comment(const Policy& policy, FamilyId home, FamilyId to,
                                           const FailedRun& run) {
  const auto name = [&](FamilyId f) {
    return f < policy.family_count() ? policy.family(f).name : std::string("?");
  };
  return "shareq: fell back from " + name(home) + " to " + name(to) + " after " +
         failure_words(run);
}

}  // namespace shareq::policy
