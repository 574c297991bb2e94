#include "queue_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "policy/job_record.hpp"
#include "policy/ordering.hpp"
#include "policy/victims.hpp"
#include "table.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

using policy::FamilyId;

// What the decision means for the job, in one phrase (the outlook says whether it is next).
std::string decision_words(const policy::Decision& d, const policy::PendingJob& job) {
  switch (d.verdict) {
    case policy::Verdict::Start:
      if (job.awaiting_victims) return policy::kAwaitingVictims;
      if (d.no_room == policy::kAwaitingCompletingNode) return d.no_room;
      return "fits now";
    case policy::Verdict::Preempt:
      return (d.victims.front().kind == policy::PreemptKind::Reclaim
                  ? "reclaims borrowed "
                  : "preempts, inside its share, ") +
             policy::victims_words(d.victims);
    case policy::Verdict::Wait:
      break;
  }
  constexpr std::string_view kPrefix = "shareq: ";
  return d.words.starts_with(kPrefix) ? d.words.substr(kPrefix.size()) : d.words;
}

QueueOutlook outlook_of(const policy::Decision& d, bool next) {
  if (next) return QueueOutlook::StartsNext;
  switch (d.verdict) {
    case policy::Verdict::Start:
      return QueueOutlook::Fits;
    case policy::Verdict::Preempt:
      return QueueOutlook::Preempts;
    case policy::Verdict::Wait:
      break;
  }
  return QueueOutlook::Waits;
}

QueueTier tier_of(const ClusterState& state, const policy::PendingJob& job,
                  const std::map<uint32_t, bool>& within) {
  if (state.policy().is_unlisted(job.share)) return QueueTier::Unlisted;
  const auto it = within.find(job.id);
  return it != within.end() && it->second ? QueueTier::WithinQuota : QueueTier::Borrow;
}

QueueEntry entry_of(const ClusterState& state, const JobInfo& info, FamilyId f, size_t position,
                    const JobInfo* next, const std::map<uint32_t, bool>& within, int64_t now) {
  const policy::PendingJob& job = *state.pending_job(info.id);
  const policy::Decision d = state.decide(job, f, now);
  QueueEntry e;
  e.position = position;
  e.job = info.id;
  e.user = info.user;
  e.share = state.policy().share_name(job.share);
  e.tier = tier_of(state, job, within);
  e.share_priority = job.priority;
  e.slurm_priority = info.priority;
  e.nodes = info.nodes;
  e.gpus = info.gpus;
  for (const policy::FamilyRequest& r : job.requests) {
    if (r.family == f) e.amount = r.amount;
  }
  if (info.start_time > 0) e.expected_start = info.start_time;
  e.outlook = outlook_of(d, next == &info);
  e.words = decision_words(d, job);
  return e;
}

FamilyQueue family_queue(const ClusterState& state, FamilyId f, const QueueFilter& filter,
                         const std::map<uint32_t, bool>& within, int64_t now) {
  const policy::FamilyInfo& family = state.policy().family(f);
  FamilyQueue out{family.name, family.unit, 0, {}};
  const std::vector<const JobInfo*> queue = state.queue(f);
  out.pending_jobs = queue.size();
  const JobInfo* next = state.next_to_start(f, now);
  const auto share = filter.share ? state.policy().share_id(*filter.share) : std::nullopt;
  for (size_t i = 0; i < queue.size() && out.jobs.size() < filter.limit; ++i) {
    const policy::PendingJob& job = *state.pending_job(queue[i]->id);
    if (share && job.share != *share) continue;
    out.jobs.push_back(entry_of(state, *queue[i], f, i + 1, next, within, now));
  }
  return out;
}

std::string request_text(const QueueEntry& e) {
  std::string text = std::to_string(e.nodes) + (e.nodes == 1 ? " node" : " nodes");
  if (e.gpus > 0) text += ", " + std::to_string(e.gpus) + " gres/gpu";
  return text;
}

std::string tier_text(QueueTier tier) {
  switch (tier) {
    case QueueTier::WithinQuota:
      return "within quota";
    case QueueTier::Borrow:
      return "borrow";
    case QueueTier::Unlisted:
      break;
  }
  return "unlisted";
}

std::string_view outlook_name(QueueOutlook outlook) {
  switch (outlook) {
    case QueueOutlook::StartsNext:
      return "starts_next";
    case QueueOutlook::Fits:
      return "fits";
    case QueueOutlook::Preempts:
      return "preempts";
    case QueueOutlook::Waits:
      break;
  }
  return "waits";
}

std::string outlook_text(const QueueEntry& e) {
  switch (e.outlook) {
    case QueueOutlook::StartsNext:
      return "starts next: " + e.words;
    case QueueOutlook::Fits:
      return e.words + ", after the jobs ahead of it";
    case QueueOutlook::Preempts:
      return e.words + " once the jobs ahead of it start";
    case QueueOutlook::Waits:
      break;
  }
  return "waits: " + e.words;
}

}  // namespace

std::map<uint32_t, bool> within_quota_of(const ClusterState& state) {
  std::vector<policy::PendingJob> pending(state.pending().begin(), state.pending().end());
  for (policy::PendingJob& job : pending) {
    const JobInfo* info = state.job(job.id);
    job.eligible = info != nullptr && info->priority > 0;
  }
  const policy::ShareRanks ranks = policy::rank_shares(state.ledger(), {});
  const policy::RankedQueue ranked = policy::prioritize_queue(ranks, state.ledger(), pending);
  std::map<uint32_t, bool> within;
  for (size_t i = 0; i < pending.size(); ++i)
    within[pending[i].id] = ranked.factors[i].within_quota;
  return within;
}

std::string_view tier_name(QueueTier tier) {
  switch (tier) {
    case QueueTier::WithinQuota:
      return "within_quota";
    case QueueTier::Borrow:
      return "borrow";
    case QueueTier::Unlisted:
      break;
  }
  return "unlisted";
}

std::vector<FamilyQueue> queue_snapshot(const ClusterState& state, const QueueFilter& filter,
                                        int64_t now) {
  const std::map<uint32_t, bool> within = within_quota_of(state);
  std::vector<FamilyQueue> out;
  for (size_t f = 0; f < state.policy().family_count(); ++f) {
    const auto id = static_cast<FamilyId>(f);
    if (filter.family && state.policy().family(id).name != *filter.family) continue;
    out.push_back(family_queue(state, id, filter, within, now));
  }
  return out;
}

std::optional<std::string> limit_error(std::string_view text, size_t& limit) {
  const text::Number n = text::parse_decimal(text, kMaxQueueLimit);
  const std::string allowed = "1.." + std::to_string(kMaxQueueLimit);
  if (n.status != text::NumberStatus::Ok) {
    return "--limit: " + text::number_message(text, n, allowed);
  }
  if (n.value == 0) return "--limit: \"0\" is out of range; allowed: " + allowed;
  limit = static_cast<size_t>(n.value);
  return std::nullopt;
}

std::optional<std::string> share_error(const policy::Policy& policy, const std::string& share) {
  if (policy.share_id(share)) return std::nullopt;
  std::vector<std::string> names;
  for (size_t s = 0; s < policy.share_count(); ++s) {
    names.push_back(policy.share_name(static_cast<policy::ShareId>(s)));
  }
  return "--share: no share " + text::quote(share) + "; shares: " + text::join(names);
}

std::string format_queue(const std::vector<FamilyQueue>& families) {
  std::string out;
  for (const FamilyQueue& f : families) {
    if (!out.empty()) out += "\n";
    out += "family " + f.family + ": " + std::to_string(f.pending_jobs) + " pending";
    if (f.jobs.size() < f.pending_jobs) out += ", " + std::to_string(f.jobs.size()) + " shown";
    out += "\n";
    if (f.jobs.empty()) continue;
    Table table({"#", "JOB", "USER", "SHARE", "TIER", "PRIO", "SLURM_PRIO", "REQUEST",
                 "EXPECTED_START", "OUTLOOK"});
    for (const QueueEntry& e : f.jobs) {
      table.add({std::to_string(e.position), std::to_string(e.job), e.user, e.share,
                 tier_text(e.tier), std::to_string(e.share_priority),
                 std::to_string(e.slurm_priority), request_text(e),
                 e.expected_start ? local_time_text(*e.expected_start) : "-", outlook_text(e)});
    }
    out += table.render();
  }
  return out;
}

std::string format_queue_json(const std::vector<FamilyQueue>& families, int64_t now) {
  nlohmann::ordered_json root;
  root["now"] = now;
  root["families"] = nlohmann::ordered_json::array();
  for (const FamilyQueue& f : families) {
    nlohmann::ordered_json family;
    family["family"] = f.family;
    family["unit"] = std::string(unit_name(f.unit));
    family["pending_jobs"] = f.pending_jobs;
    family["jobs"] = nlohmann::ordered_json::array();
    for (const QueueEntry& e : f.jobs) {
      nlohmann::ordered_json job;
      job["position"] = e.position;
      job["job_id"] = e.job;
      job["user"] = e.user;
      job["share"] = e.share;
      job["tier"] = std::string(tier_name(e.tier));
      job["share_priority"] = e.share_priority;
      job["priority"] = e.slurm_priority;
      job["nodes"] = e.nodes;
      job["gpus"] = e.gpus;
      job["amount"] = e.amount;
      job["expected_start"] =
          e.expected_start ? nlohmann::ordered_json(*e.expected_start) : nlohmann::ordered_json();
      job["outlook"] = std::string(outlook_name(e.outlook));
      job["words"] = e.words;
      family["jobs"].push_back(std::move(job));
    }
    root["families"].push_back(std::move(family));
  }
  return root.dump() + "\n";
}

}  // namespace shareq::tool
