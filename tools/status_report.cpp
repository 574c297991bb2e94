#include "status_report.hpp"

#include "table.hpp"
#include "units.hpp"

namespace shareq::tool {
namespace {

ShareStatus share_status(const ClusterState& state, policy::ShareId s, policy::FamilyId f) {
  const policy::Ledger& ledger = state.ledger();
  const policy::QuotaRule* rule = state.policy().rule(s, f);
  ShareStatus row;
  row.share = state.policy().share_name(s);
  row.quota = rule->quota;
  row.usage = ledger.usage(s, f);
  row.borrowed = ledger.borrowed(s, f);
  for (const policy::HeldCapacity& held : state.view().held) {
    if (held.share == s && held.family == f) row.reserved += held.amount;
  }
  row.borrow_limit = rule->borrow_limit;
  row.lend_limit = rule->lend_limit;
  row.borrow_weight = rule->borrow_weight;
  for (const policy::RunningJob& job : state.running()) {
    if (job.share == s && job.family == f) ++row.running_jobs;
  }
  for (const policy::PendingJob& job : state.pending()) {
    if (job.share != s) continue;
    for (const policy::FamilyRequest& request : job.requests) {
      if (request.family != f) continue;
      ++row.pending_jobs;
      row.demand += request.amount;
    }
  }
  return row;
}

FamilyStatus one_family(const ClusterState& state, policy::FamilyId f, int64_t now) {
  const policy::Ledger& ledger = state.ledger();
  const policy::FamilyInfo& info = state.policy().family(f);
  FamilyStatus family{info.name,
                      info.unit,
                      ledger.capacity(f),
                      ledger.used(f),
                      ledger.idle(f),
                      ledger.borrowed_total(f),
                      ledger.lendable(f),
                      0,
                      0,
                      std::nullopt,
                      {},
                      {}};
  if (const JobInfo* next = state.next_to_start(f, now)) {
    family.next_job = next->id;
    family.next_share = share_name_of(state.policy(), *next);
  }
  for (size_t s = 0; s < state.policy().share_count(); ++s) {
    const auto share = static_cast<policy::ShareId>(s);
    if (state.policy().rule(share, f) == nullptr) continue;
    ShareStatus row = share_status(state, share, f);
    // The unlisted accounts' share is a row only while it has jobs here.
    if (state.policy().is_unlisted(share) && row.running_jobs == 0 && row.pending_jobs == 0) {
      continue;
    }
    family.shares.push_back(std::move(row));
  }
  // Jobs of shares without a Share= line here still wait on the family (NoQuotaInFamily).
  for (const policy::PendingJob& job : state.pending()) {
    for (const policy::FamilyRequest& request : job.requests) {
      if (request.family != f) continue;
      ++family.pending_jobs;
      family.demand += request.amount;
    }
  }
  return family;
}

}  // namespace

std::vector<FamilyStatus> family_status(const ClusterState& state,
                                        const std::optional<std::string>& family) {
  std::vector<FamilyStatus> out;
  for (size_t f = 0; f < state.policy().family_count(); ++f) {
    const auto id = static_cast<policy::FamilyId>(f);
    if (family && state.policy().family(id).name != *family) continue;
    out.push_back(one_family(state, id, state.now()));
  }
  return out;
}

std::string format_status(const std::vector<FamilyStatus>& families) {
  Table summary({"FAMILY", "UNIT", "CAPACITY", "USED", "IDLE", "BORROWED", "PENDING", "DEMAND"});
  Table shares({"FAMILY", "SHARE", "QUOTA", "USAGE", "BORROWED", "BORROWLIMIT", "LENDLIMIT",
                "WEIGHT", "RUNNING", "PENDING", "DEMAND"});
  for (const FamilyStatus& f : families) {
    summary.add({f.name, std::string(unit_name(f.unit)), cell(f.capacity), cell(f.used),
                 cell(f.idle), cell(f.borrowed), std::to_string(f.pending_jobs), cell(f.demand)});
    for (const ShareStatus& s : f.shares) {
      shares.add({f.name, s.share, cell(s.quota), cell(s.usage), cell(s.borrowed),
                  cell(s.borrow_limit), cell(s.lend_limit), units::format_weight(s.borrow_weight),
                  std::to_string(s.running_jobs), std::to_string(s.pending_jobs), cell(s.demand)});
    }
  }
  std::string next;
  for (const FamilyStatus& f : families) {
    next += "next to start in " + f.name + ": " +
            (f.next_job ? "job " + std::to_string(*f.next_job) + " (" + f.next_share + ")"
                        : std::string("none (every pending job waits)")) +
            "\n";
  }
  return summary.render() + "\n" + shares.render() + "\n" + next;
}

std::string format_status_json(const std::vector<FamilyStatus>& families) {
  std::string out = "{\"families\":[";
  for (size_t i = 0; i < families.size(); ++i) {
    const FamilyStatus& f = families[i];
    if (i > 0) out += ",";
    out += "{\"name\":" + json_string(f.name) + ",\"unit\":" + json_string(unit_name(f.unit)) +
           ",\"capacity\":" + json_amount(f.capacity) + ",\"used\":" + json_amount(f.used) +
           ",\"idle\":" + json_amount(f.idle) + ",\"borrowed\":" + json_amount(f.borrowed) +
           ",\"lendable\":" + json_amount(f.lendable) +
           ",\"pending_jobs\":" + std::to_string(f.pending_jobs) +
           ",\"demand\":" + json_amount(f.demand) +
           ",\"next_job\":" + (f.next_job ? std::to_string(*f.next_job) : "null") + ",\"shares\":[";
    for (size_t j = 0; j < f.shares.size(); ++j) {
      const ShareStatus& s = f.shares[j];
      if (j > 0) out += ",";
      out += "{\"share\":" + json_string(s.share) + ",\"quota\":" + json_amount(s.quota) +
             ",\"usage\":" + json_amount(s.usage) + ",\"borrowed\":" + json_amount(s.borrowed) +
             ",\"borrow_limit\":" + json_amount(s.borrow_limit) +
             ",\"lend_limit\":" + json_amount(s.lend_limit) +
             ",\"borrow_weight\":" + units::format_weight(s.borrow_weight) +
             ",\"running_jobs\":" + std::to_string(s.running_jobs) +
             ",\"pending_jobs\":" + std::to_string(s.pending_jobs) +
             ",\"demand\":" + json_amount(s.demand) + ",\"reserved\":" + json_amount(s.reserved) +
             "}";
    }
    out += "]}";
  }
  return out + "]}\n";
}

}  // namespace shareq::tool
