#include "why_report.hpp"

#include <algorithm>

#include "policy/admission.hpp"
#include "policy/decision.hpp"
#include "policy/job_record.hpp"
#include "policy/victims.hpp"
#include "table.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

using policy::FamilyId;
using policy::ShareId;
using policy::WaitReason;

Unit unit_of(const ClusterState& state, FamilyId f) { return state.policy().family(f).unit; }

std::string family_part(const ClusterState& state, FamilyId f, int64_t amount) {
  const policy::Ledger& ledger = state.ledger();
  const std::string& name = state.policy().family(f).name;
  const std::string used =
      std::to_string(ledger.used(f)) + "/" + amount_text(ledger.capacity(f), unit_of(state, f));
  if (ledger.idle(f) == 0) return "family " + name + " is at capacity: " + used;
  return "family " + name + " has " + (ledger.idle(f) < amount ? "only " : "") +
         amount_text(ledger.idle(f), unit_of(state, f)) + " idle (" + used + " used)";
}

std::string share_part(const ClusterState& state, ShareId s, FamilyId f, int64_t amount) {
  const policy::Ledger& ledger = state.ledger();
  const policy::QuotaRule* rule = state.policy().rule(s, f);
  const int64_t usage = ledger.usage(s, f);
  std::string text = "share " + state.policy().share_name(s) + " holds " + std::to_string(usage) +
                     " of its quota " + std::to_string(rule->quota);
  const int64_t after = usage + amount;
  if (after <= rule->quota) {
    return text + "; the job (" + amount_text(amount, unit_of(state, f)) + ") fits in its quota";
  }
  return text + "; " + amount_text(after - rule->quota, unit_of(state, f)) +
         " would be borrowed, BorrowLimit " + cell(rule->borrow_limit);
}

// When the first borrowed job of another share in `f` reaches ReclaimMinRuntime.
std::optional<int64_t> first_reclaimable(const ClusterState& state, ShareId s, FamilyId f,
                                         int64_t now) {
  std::optional<int64_t> first;
  for (const policy::RunningJob& job : state.running()) {
    // Only a job its share can lose and stay at or above its quota is ever a reclaim victim.
    if (job.family != f || job.share == s || job.amount > state.ledger().borrowed(job.share, f)) {
      continue;
    }
    const int64_t at = job.start_time + state.policy().reclaim_min_runtime_s;
    if (at > now && (!first || at < *first)) first = at;
  }
  return first;
}

// What policy::decide() says the job does now in `f`, in words: the scheduler's own decision.
std::string outlook(const ClusterState& state, const policy::PendingJob& job, FamilyId f,
                    int64_t amount, int64_t now) {
  const policy::Decision d = state.decide(job, f, now);
  // Rule 2 of decide(): it starts once its victims have ended (Wait while one still runs).
  if (job.awaiting_victims && d.reason == WaitReason::None) {
    return "the jobs it preempted are ending; it starts once they have";
  }
  switch (d.verdict) {
    case policy::Verdict::Start:
      if (d.no_room == policy::kAwaitingCompletingNode) {
        return "it fits now, nothing to preempt; if no node has room it waits for a node that is "
               "still cleaning up after a job that ended, rather than reclaim";
      }
      return "it fits now, nothing to preempt; it starts when Slurm's scheduler reaches it";
    case policy::Verdict::Preempt: {
      const bool reclaim = d.victims.front().kind == policy::PreemptKind::Reclaim;
      return (reclaim ? "reclaim would requeue borrowed " : "in-share preemption would requeue ") +
             policy::victims_words(d.victims) + " (should start at the next scheduling pass)";
    }
    case policy::Verdict::Wait:
      break;
  }
  const policy::Ledger& ledger = state.ledger();
  switch (d.reason) {
    case WaitReason::NoQuotaInFamily:
    case WaitReason::LargerThanFamily:
      return d.words.substr(std::string_view("shareq: ").size());
    case WaitReason::ReclaimMinRuntime: {
      const auto at = first_reclaimable(state, job.share, f, now);
      return "borrowed jobs run less than ReclaimMinRuntime=" +
             std::to_string(state.policy().reclaim_min_runtime_s) + "s" +
             (at ? "; the first can be reclaimed at " + local_time_text(*at) + " (in " +
                       duration_text(*at - now) + ")"
                 : "");
    }
    case WaitReason::ReclaimAfter: {
      const int64_t at = job.submit_time + state.policy().reclaim_after_s;
      return "it waits up to ReclaimAfter=" + std::to_string(state.policy().reclaim_after_s) +
             "s for capacity to come free by itself; it may reclaim borrowed capacity from " +
             local_time_text(at) + " (in " + duration_text(std::max<int64_t>(at - now, 0)) + ")";
    }
    case WaitReason::ShareAtBorrowLimit:
      return "over its BorrowLimit: it waits for jobs of its share to end";
    case WaitReason::NothingToBorrow:
      if (ledger.idle(f) < amount) return "nothing idle to borrow: it waits for jobs to end";
      return "borrowers already hold " + std::to_string(ledger.borrowed_total(f)) + " of the " +
             std::to_string(ledger.lendable(f)) +
             " that unassigned capacity and LendLimits allow to lend";
    default:
      return "no borrowed job can be reclaimed without taking its share below quota: it waits "
             "for jobs to end";
  }
}

std::string place_in_order(const ClusterState& state, const JobInfo& info, FamilyId f,
                           int64_t now) {
  if (info.priority == 0) return "held (Slurm priority 0): it does not start until released";
  const std::vector<const JobInfo*> queue = state.queue(f);
  const auto it = std::find(queue.begin(), queue.end(), &info);
  const int position = static_cast<int>(it - queue.begin()) + 1;
  std::string text = ordinal(position) + " of " + std::to_string(queue.size()) +
                     " pending jobs in " + state.policy().family(f).name + " (Slurm priority " +
                     std::to_string(info.priority) + ")";
  std::vector<std::string> ahead;
  for (auto a = queue.begin(); a != it && ahead.size() < 5; ++a) {
    ahead.push_back(std::to_string((*a)->id) + " (" + (*a)->account + ")");
  }
  if (!ahead.empty()) {
    text += "; ahead: " + text::join(ahead) + (position - 1 > 5 ? ", ..." : "");
  }
  const JobInfo* next = state.next_to_start(f, now);
  if (next == &info) return text + "; it starts next";
  return text + "; " +
         (next != nullptr ? "job " + std::to_string(next->id) + " starts next"
                          : std::string("no pending job can start now"));
}

// What slurmctld does with the job in `f` now, by the same decide() (job_test_hook.cpp), and so
// the reason squeue shows: a Wait sets its words; a Start whose job finds no node with room sets
// no_room's; otherwise the reason is Slurm's own until the job starts.
std::string decision_line(const ClusterState& state, const JobInfo& info,
                          const policy::PendingJob& job, FamilyId f, int64_t now) {
  if (info.priority == 0) return "none while it is held: the reason is Slurm's own";
  const policy::Decision d = state.decide(job, f, now);
  switch (d.verdict) {
    case policy::Verdict::Wait:
      return "waits; slurmctld's reason: " + d.words;
    case policy::Verdict::Preempt:
      return "preempts " + policy::victims_words(d.victims) +
             " and starts (a reason of Slurm's own meanwhile)";
    case policy::Verdict::Start:
      break;
  }
  if (!d.no_room.empty()) {
    // slurmctld sets these words when its scheduler tries the job and finds no node with room;
    // until such a try, the reason is Slurm's own.
    return "starts once a node has room; until then Slurm's own reason, or after a try that "
           "found none, slurmctld's reason: shareq: " +
           d.no_room;
  }
  return "starts (a reason of Slurm's own until it does)";
}

void line(std::string& out, std::string_view label, const std::string& value) {
  if (value.empty()) return;
  std::string padded(label);
  padded.resize(std::max<size_t>(padded.size() + 1, 14), ' ');
  out += padded + value + "\n";
}

std::string header(const ClusterState& state, const JobInfo& info) {
  const auto tag = policy::submission_tag(info.admin_comment);
  const int priority = tag ? tag->priority : state.policy().default_priority;
  std::string share_words = share_name_of(state.policy(), info);
  if (to_lower(info.account) != share_words) share_words += " (account " + info.account + ")";
  std::string nice;
  if (info.nice != 0) nice = ", nice " + std::to_string(info.nice);
  return "job " + std::to_string(info.id) + ": " + info.state_name + ", user " + info.user +
         ", share " + share_words + ", priority " + std::to_string(priority) +
         (tag ? "" : " (DefaultPriority)") + nice + "\n";
}

std::string explain_pending(const ClusterState& state, const JobInfo& info,
                            const policy::PendingJob& job, int64_t now) {
  std::string out = header(state, info);
  line(out, "reason:", info.reason);
  for (const policy::FamilyRequest& request : job.requests) {
    const FamilyId f = request.family;
    const policy::Admission admission = policy::admit(state.ledger(), job.share, f, request.amount);
    const std::string& name = state.policy().family(f).name;
    std::string summary = "asks " + amount_text(request.amount, unit_of(state, f));
    if (admission.reason != WaitReason::NoQuotaInFamily &&
        admission.reason != WaitReason::LargerThanFamily) {
      summary += admission.within_quota ? ", within its share's quota" : ", would borrow";
      line(out, "family " + name + ":", summary);
      line(out, "  waits for:", wait_sentence(state, job, f, request.amount, now));
    } else {
      line(out, "family " + name + ":", summary);
      line(out, "  waits for:", outlook(state, job, f, request.amount, now));
    }
    line(out, "  decision:", decision_line(state, info, job, f, now));
    line(out, "  order:", place_in_order(state, info, f, now));
  }
  for (const policy::LaterRequest& later : job.later) {
    const std::string& name = state.policy().family(later.family).name;
    line(out, "family " + name + ":",
         "a fallback of " + state.policy().family(*job.home).name + ": asks " +
             amount_text(later.amount, unit_of(state, later.family)) + "; it may start here from " +
             local_time_text(later.opens_at) + " (in " +
             duration_text(std::max<int64_t>(later.opens_at - now, 0)) +
             ", FallbackDelay=" + std::to_string(state.policy().fallback_delay_s) + "s)");
    line(out, "  decision:", decision_line(state, info, job, later.family, now));
  }
  line(out, "comment:", info.system_comment);
  return out;
}

std::string reclaim_line(const ClusterState& state, const policy::RunningJob& job, int64_t now) {
  const int64_t borrowed = state.ledger().borrowed(job.share, job.family);
  const Unit unit = unit_of(state, job.family);
  if (borrowed == 0) return "no: its share is within its quota, so no other share reclaims it";
  if (job.amount > borrowed) {
    return "not this job: its share borrows " + amount_text(borrowed, unit) + ", less than the " +
           amount_text(job.amount, unit) +
           " it holds, and reclaim never takes a share below "
           "its quota";
  }
  const int64_t from = job.start_time + state.policy().reclaim_min_runtime_s;
  return "yes: it borrows, so a share under its quota may requeue it" +
         (from > now ? " from " + local_time_text(from) + " (ReclaimMinRuntime=" +
                           std::to_string(state.policy().reclaim_min_runtime_s) + "s)"
                     : std::string());
}

std::string explain_running(const ClusterState& state, const JobInfo& info,
                            const policy::RunningJob& job, int64_t now) {
  std::string out = header(state, info);
  const FamilyId f = job.family;
  const Unit unit = unit_of(state, f);
  line(out, "runs on:",
       info.node_list + " (partition " + info.partitions.front() + ", family " +
           state.policy().family(f).name + "), " + amount_text(job.amount, unit) + ", since " +
           local_time_text(job.start_time) + " (" + duration_text(now - job.start_time) + ")");
  const int64_t usage = state.ledger().usage(job.share, f);
  const int64_t quota = state.ledger().quota(job.share, f);
  line(out, "share:",
       state.policy().share_name(job.share) + " holds " + std::to_string(usage) + " of its quota " +
           std::to_string(quota) + " in " + state.policy().family(f).name +
           (usage > quota ? ": borrowing " + amount_text(usage - quota, unit) : ""));
  line(out, "reclaim:", reclaim_line(state, job, now));
  if (state.policy().in_share_preemption && job.priority < 99) {
    line(out, "in-share:",
         "a job of the same share with a priority above " + std::to_string(job.priority) +
             " may preempt it when the share is at its quota (InSharePreemption=yes)");
  }
  line(out, "comment:", info.system_comment);
  return out;
}

}  // namespace

std::string ordinal(int n) {
  const int tens = n % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string wait_sentence(const ClusterState& state, const policy::PendingJob& job, FamilyId f,
                          int64_t amount, int64_t now) {
  const policy::Admission admission = policy::admit(state.ledger(), job.share, f, amount);
  if (admission.reason == WaitReason::NoQuotaInFamily ||
      admission.reason == WaitReason::LargerThanFamily) {
    return outlook(state, job, f, amount, now);
  }
  return family_part(state, f, amount) + "; " + share_part(state, job.share, f, amount) + "; " +
         outlook(state, job, f, amount, now);
}

std::string explain_job(const ClusterState& state, uint32_t job_id, int64_t now) {
  const JobInfo& info = *state.job(job_id);
  if (const policy::PendingJob* pending = state.pending_job(job_id)) {
    return explain_pending(state, info, *pending, now);
  }
  if (const policy::RunningJob* running = state.running_job(job_id)) {
    return explain_running(state, info, *running, now);
  }
  std::string out = "job " + std::to_string(info.id) + ": " + info.state_name + ", user " +
                    info.user + ", account " + info.account + "\n";
  const auto claim = std::find_if(
      state.claims().begin(), state.claims().end(), [&](const policy::ReclaimClaim& c) {
        return std::find(c.victims.begin(), c.victims.end(), info.id) != c.victims.end();
      });
  if (claim != state.claims().end() &&
      (info.state == JobState::Running || info.state == JobState::Suspended)) {
    line(out, "shareq:",
         "preempted by job " + std::to_string(claim->job) +
             ", which waits for it to end: what it holds already counts as job " +
             std::to_string(claim->job) + "'s");
  } else if (info.state == JobState::Pending || info.state == JobState::Running ||
             info.state == JobState::Suspended) {
    line(out, "shareq:",
         "does not govern this job: its account has no Share= line, or none of its "
         "partitions is in a family of shareq.conf");
  }
  line(out, "reason:", info.reason);
  line(out, "comment:", info.system_comment);
  return out;
}

namespace {

// Array task indexes stop below Slurm's NO_VAL (0xfffffffe).
constexpr uint64_t kMaxArrayTask = 4294967293ULL;
constexpr std::string_view kJobIdAllowed =
    "allowed: a job id 1..4294967295, or one task of a job array as JOBID_TASK (e.g. 5_1)";

Error operand_error(std::string message) { return Error{"JOBID", std::move(message)}; }

// The operand as written when it is plain (digits, letters, ".", "_", "+"), quoted otherwise.
std::string shown(std::string_view text) {
  return text.size() <= 64 && text::all_of_charset(text, "._+[]-,:%") ? std::string(text)
                                                                      : text::quote(text);
}

std::string_view leading_digits(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  return text.substr(0, n);
}

// Whether `task` is in squeue's list of pending tasks ("2-4,7", "1-9:2%4"); nullopt when the
// list is in a form not read here (a hex bitmap), so that it is not taken as a "no".
std::optional<bool> task_listed(std::string_view list, uint32_t task) {
  list = list.substr(0, list.find('%'));  // "%4": how many may run at once
  if (list.empty()) return std::nullopt;
  for (std::string_view range : text::split(list, ',')) {
    const size_t colon = range.find(':');
    const std::string_view bounds = range.substr(0, colon);
    const size_t dash = bounds.find('-');
    const text::Number low = text::parse_decimal(bounds.substr(0, dash), kMaxArrayTask);
    const text::Number high = dash == std::string_view::npos
                                  ? low
                                  : text::parse_decimal(bounds.substr(dash + 1), kMaxArrayTask);
    const text::Number step = colon == std::string_view::npos
                                  ? text::Number{text::NumberStatus::Ok, 1}
                                  : text::parse_decimal(range.substr(colon + 1), kMaxArrayTask);
    if (low.status != text::NumberStatus::Ok || high.status != text::NumberStatus::Ok ||
        step.status != text::NumberStatus::Ok || step.value == 0) {
      return std::nullopt;
    }
    if (task >= low.value && task <= high.value && (task - low.value) % step.value == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<JobOperand> parse_job_operand(std::string_view text) {
  const auto not_a_job_id = [&] {
    return operand_error(text::quote(text) + " is not a job id; " + std::string(kJobIdAllowed));
  };
  // A step: JOB.STEP or JOB_TASK.STEP (STEP a number, batch, extern, ...).
  if (const size_t dot = text.find('.'); dot != std::string_view::npos && dot + 1 < text.size()) {
    const std::string_view job = text.substr(0, dot);
    if (parse_job_operand(job)) {
      return operand_error(shown(text) + " is a job step; shareq why takes a job id, e.g. " +
                           std::string(job));
    }
    return not_a_job_id();
  }
  // A heterogeneous job's component: JOB+OFFSET.
  if (const size_t plus = text.find('+'); plus != std::string_view::npos && plus > 0) {
    const text::Number job = text::parse_decimal(text.substr(0, plus), UINT32_MAX);
    const text::Number offset = text::parse_decimal(text.substr(plus + 1), UINT32_MAX);
    if (job.status == text::NumberStatus::Ok && job.value > 0 &&
        offset.status == text::NumberStatus::Ok) {
      return operand_error(shown(text) + " is a component of heterogeneous job " +
                           std::to_string(job.value) + "; shareq why takes a job id (squeue -j " +
                           std::to_string(job.value) + " shows each component's), or " +
                           std::to_string(job.value));
    }
    return not_a_job_id();
  }
  const size_t underscore = text.find('_');
  const text::Number job = text::parse_decimal(text.substr(0, underscore), UINT32_MAX);
  if (job.status != text::NumberStatus::Ok || job.value == 0) {
    return not_a_job_id();
  }
  const auto job_id = static_cast<uint32_t>(job.value);
  if (underscore == std::string_view::npos) {
    return JobOperand{job_id, std::nullopt};
  }
  const std::string_view task_text = text.substr(underscore + 1);
  const text::Number task = text::parse_decimal(task_text, kMaxArrayTask);
  if (task.status == text::NumberStatus::Ok) {
    return JobOperand{job_id, static_cast<uint32_t>(task.value)};
  }
  if (task_text.find_first_of("[]-,:%*") != std::string_view::npos) {
    const std::string_view first =
        leading_digits(task_text.starts_with('[') ? task_text.substr(1) : task_text);
    return operand_error(shown(text) + " names several tasks of job array " +
                         std::to_string(job_id) + "; shareq why takes one, e.g. " +
                         std::to_string(job_id) + "_" +
                         (first.empty() ? std::string("1") : std::string(first)));
  }
  if (task.status == text::NumberStatus::TooLarge) {
    return operand_error("array task " + shown(task_text) + " of " + shown(text) +
                         " is out of range; allowed: JOBID_TASK with TASK 0.." +
                         std::to_string(kMaxArrayTask));
  }
  return not_a_job_id();
}

Result<ArrayTaskJob> resolve_array_task(const std::vector<ArrayRecord>& records,
                                        uint32_t array_job_id, uint32_t task) {
  const std::string array = std::to_string(array_job_id);
  const std::string name = array + "_" + std::to_string(task);
  constexpr std::string_view kGone =
      " (it never existed, or ended more than MinJobAge ago: see sacct)";
  bool known = false;
  bool is_array = false;
  const ArrayRecord* pending = nullptr;
  for (const ArrayRecord& record : records) {
    known = known || record.job_id == array_job_id;
    if (record.array_job_id != array_job_id) continue;
    is_array = true;
    if (record.task && *record.task == task) {
      return ArrayTaskJob{record.job_id, ""};
    }
    if (!record.task && task_listed(record.pending_tasks, task) != false) {
      pending = &record;
    }
  }
  if (pending != nullptr) {
    const std::string id = std::to_string(pending->job_id);
    return ArrayTaskJob{pending->job_id,
                        name + " is still pending with the array's other pending tasks (" + array +
                            "_[" + pending->pending_tasks + "], job " + id +
                            "), which Slurm gives a job id of their own only when they start; "
                            "explaining job " +
                            id};
  }
  if (!known && !is_array) {
    return operand_error("slurmctld does not know job " + array + std::string(kGone));
  }
  if (!is_array) {
    return operand_error("job " + array + " is not a job array; shareq why takes its job id, " +
                         array);
  }
  return operand_error("slurmctld knows no task " + std::to_string(task) + " of job array " +
                       array + std::string(kGone));
}

}  // namespace shareq::tool
