#include "wait_reasons.hpp"

#include <algorithm>

#include "controller_state.hpp"
#include "slurmctld_headers.hpp"

namespace shareq::ctld {
namespace {

WaitReasonsPart& part() { return controller_state().wait_reasons; }

// The reasons Slurm gives a job when it drops a select plugin's words: select_nodes() after a
// refusal (Resources), the main scheduler for the jobs behind it (Priority), or none yet.
bool reset_by_slurm(const JobRecord* job) {
  return job->state_desc == nullptr &&
         (job->state_reason == WAIT_RESOURCES || job->state_reason == WAIT_PRIORITY ||
          job->state_reason == WAIT_NO_REASON);
}

}  // namespace

bool keep_wait_reason(uint32_t job_id, const std::string& words) {
  WaitReasonsPart& w = part();
  const RankedLock lock(w.mutex);
  const auto [kept, added] = w.words.try_emplace(job_id, words);
  if (added) return true;
  if (kept->second == words) return false;
  kept->second = words;
  return true;
}

bool forget_wait_reason(uint32_t job_id) {
  WaitReasonsPart& w = part();
  const RankedLock lock(w.mutex);
  return w.words.erase(job_id) > 0;
}

bool restore_wait_reason(JobRecord* job) {
  if (!IS_JOB_PENDING(job) || !reset_by_slurm(job)) return false;
  WaitReasonsPart& w = part();
  const RankedLock lock(w.mutex);
  const auto kept = w.words.find(job->job_id);
  if (kept == w.words.end()) return false;
  job->state_desc = xstrdup(kept->second.c_str());
  job->state_reason = SHAREQ_SLURM_SELECT_REASON;
  return true;
}

void wait_reasons_keep_pending(std::vector<uint32_t> pending) {
  WaitReasonsPart& w = part();
  const RankedLock lock(w.mutex);
  if (w.words.empty()) return;  // always so on a release that keeps the words itself
  std::sort(pending.begin(), pending.end());
  std::erase_if(w.words, [&](const auto& entry) {
    return !std::binary_search(pending.begin(), pending.end(), entry.first);
  });
}

}  // namespace shareq::ctld
