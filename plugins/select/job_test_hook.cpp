#include "job_test_hook.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cons_tres.hpp"
#include "gpu_packing.hpp"
#include "config_state.hpp"
#include "image_digests.hpp"
#include "job_comments.hpp"
#include "policy/admission.hpp"
#include "policy/victims.hpp"
#include "policy/decision.hpp"
#include "policy/failed_runs.hpp"
#include "policy/fallback.hpp"
#include "policy/run_words.hpp"
#include "recent_ends.hpp"
#include "reclaim_claims.hpp"
#include "slurm_conf_access.hpp"
#include "slurm_jobs.hpp"
#include "submit_shim.h"
#include "wait_reasons.hpp"
#include "warm_pools.hpp"

#pragma weak last_job_update    // slurmctld-only: this plugin also loads in slurmd and clients
#pragma weak node_record_count  // libslurmfull only; clients load this plugin through libslurm
#pragma weak node_record_table_ptr

namespace shareq::select {
namespace {

namespace policy = shareq::policy;

// The one reason select_nodes() leaves with its state_desc (see job_test_hook.hpp), where the
// release has one (slurm_compat.h).
constexpr uint32_t kShareqReason = SHAREQ_SLURM_SELECT_REASON;

int forward_plain(const JobTestArgs& a, list_t* candidates) {
  return cons_tres().ops().job_test(a.job_ptr, a.node_bitmap, a.min_nodes, a.max_nodes, a.req_nodes,
                                    a.mode, candidates, a.preemptee_job_list,
                                    SHAREQ_SELECT_JOB_TEST_TAIL_ARGS(a));
}

// cons_tres on exactly the nodes of `trial`, without preemption. On success the placement is
// copied into a.node_bitmap; `trial` is the caller's and cons_tres may have changed it.
int try_on(const JobTestArgs& a, bitstr_t* trial) {
  JobTestArgs t = a;
  t.node_bitmap = trial;
  list_t* none = nullptr;
  t.preemptee_job_list = &none;
  int rc = SLURM_ERROR;
  if (bit_set_count(trial) >= static_cast<int>(a.min_nodes)) rc = forward_plain(t, nullptr);
  if (rc == SLURM_SUCCESS) bit_copybits(a.node_bitmap, trial);
  FREE_NULL_LIST(none);
  return rc;
}

// GPU packing (gpu_packing.hpp) for a job that starts now: cons_tres on the best-fit nodes
// only. SLURM_SUCCESS with the placement in a.node_bitmap, else SLURM_ERROR with a.node_bitmap
// as it was (cons_tres works on a copy: it clears what it did not pick, also when it fails).
int try_packed(const JobTestArgs& a) {
  if (a.mode != SELECT_MODE_RUN_NOW) return SLURM_ERROR;
  const std::vector<int> best = gpu_packing_nodes(a);
  if (best.empty()) return SLURM_ERROR;
  bitstr_t* trial = bit_alloc(bit_size(a.node_bitmap));
  for (const int i : best) bit_set(trial, i);
  const int rc = try_on(a, trial);
  FREE_NULL_BITMAP(trial);
  return rc;
}

// cons_tres on the candidates minus `drop` (and only within `keep`, when given), without
// preemption, best-fit nodes first. On success the placement is copied into a.node_bitmap.
int try_restricted(const JobTestArgs& a, const std::vector<std::string>& keep, bool keep_only,
                   const std::vector<std::string>& drop) {
  bitstr_t* trial = bit_copy(a.node_bitmap);
  if (keep_only) {
    bit_clear_all(trial);
    for (const std::string& name : keep) {
      node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
      if (node != nullptr && bit_test(a.node_bitmap, node->index)) bit_set(trial, node->index);
    }
  }
  for (const std::string& name : drop) {
    if (node_record_t* node = find_node_record(const_cast<char*>(name.c_str()))) {
      bit_clear(trial, node->index);
    }
  }
  JobTestArgs within = a;
  within.node_bitmap = trial;
  int rc = try_packed(within);
  if (rc == SLURM_SUCCESS) {
    bit_copybits(a.node_bitmap, trial);
  } else {
    rc = try_on(a, trial);
  }
  FREE_NULL_BITMAP(trial);
  return rc;
}

// cons_tres; best-fit nodes first when the job starts now without preemption.
int place(const JobTestArgs& a, list_t* candidates) {
  if (candidates == nullptr && try_packed(a) == SLURM_SUCCESS) return SLURM_SUCCESS;
  return forward_plain(a, candidates);
}

// Warm pools in front of cons_tres (placement.hpp's advice): a job that matches a waiting pool
// whose nodes are all candidates is tried on exactly those nodes first; other pools' warm nodes
// are forbidden (reserve mode) or tried last (prefer mode: taking them ends their pool, see
// warm_job_started). TEST_ONLY ("could it ever run") is not restricted. With no waiting pool
// (one atomic load) the job goes straight to cons_tres: the scheduler pays nothing for warm
// pools while there are none.
int forward(const JobTestArgs& a, list_t* candidates) {
  if (a.mode == SELECT_MODE_TEST_ONLY || !running_in_slurmctld()) {
    return forward_plain(a, candidates);
  }
  if (!ctld::warm_pools_waiting()) return place(a, candidates);
  std::vector<std::string> names;
  for (int i = 0; i < node_record_count; ++i) {
    if (bit_test(a.node_bitmap, i) && node_record_table_ptr[i] != nullptr) {
      names.emplace_back(node_record_table_ptr[i]->name);
    }
  }
  const warm::NodeAdvice advice = ctld::warm_advice(a.job_ptr, names, a.now);
  for (const std::string& name : advice.forbid) {
    if (node_record_t* node = find_node_record(const_cast<char*>(name.c_str()))) {
      bit_clear(a.node_bitmap, node->index);
    }
  }
  if (advice.pool && !advice.prefer.empty() &&
      try_restricted(a, advice.prefer, true, {}) == SLURM_SUCCESS) {
    return SLURM_SUCCESS;
  }
  if (!advice.avoid.empty() && try_restricted(a, {}, false, advice.avoid) == SLURM_SUCCESS) {
    return SLURM_SUCCESS;
  }
  return place(a, candidates);
}

// WarmPoolMode=reserve: the decision sends a job that matches a waiting pool of its share to
// exactly the pool's nodes first (policy/decision.hpp, rule 3). SLURM_ERROR when they are not
// free: the rest of the decision applies.
int start_on_pool(const JobTestArgs& a, uint64_t pool, const ctld::RunningSnapshot& snapshot) {
  for (const ctld::ReservedPool& reserved : snapshot.reserved()) {
    if (reserved.pool == pool) return try_restricted(a, reserved.nodes, true, {});
  }
  return SLURM_ERROR;
}

// shareq's words for a refused job (squeue's reason). last_job_update moves only when the words
// change: Slurm's backfill breaks its cycle off when it moved while the cycle had released the
// locks (unless bf_continue), and from 23.02 Slurm resets a refused job's reason at every
// scheduling pass (SHAREQ_SLURM_SELECT_REASON_KEPT), so writing the same words back each pass must
// not count as a change (select_nodes() sets Resources after a refusal without one either).
void set_wait_reason(job_record_t* job, const std::string& text) {
  const std::string words = text.rfind("shareq", 0) == 0 ? text : "shareq: " + text;
  const bool shown =
      job->state_reason == kShareqReason && job->state_desc != nullptr && words == job->state_desc;
  const bool changed =
      SHAREQ_SLURM_SELECT_REASON_KEPT ? !shown : ctld::keep_wait_reason(job->job_id, words);
  if (shown) return;
  xfree(job->state_desc);
  job->state_desc = xstrdup(words.c_str());
  job->state_reason = kShareqReason;
  if (changed) last_job_update = time(nullptr);
}

// Takes shareq's words off a job it lets through. Where kShareqReason is Slurm's own Resources
// (from 23.02), only words of shareq's are taken off (kept ones, or ones a restart of slurmctld
// brought back from its state): Slurm's own reason stays.
void clear_wait_reason(job_record_t* job) {
  if (SHAREQ_SLURM_SELECT_REASON_KEPT) {
    if (job->state_reason != kShareqReason) return;
  } else {
    (void)ctld::forget_wait_reason(job->job_id);
    if (job->state_reason != kShareqReason || job->state_desc == nullptr ||
        std::string_view(job->state_desc).rfind("shareq", 0) != 0) {
      return;
    }
  }
  job->state_reason = WAIT_NO_REASON;
  xfree(job->state_desc);
  last_job_update = time(nullptr);
}

job_record_t* find_in(list_t* list, uint32_t job_id) {
  job_record_t* found = nullptr;
  list_itr_t* it = list_iterator_create(list);
  while (auto* j = static_cast<job_record_t*>(list_next(it))) {
    if (j->job_id == job_id) {
      found = j;
      break;
    }
  }
  list_iterator_destroy(it);
  return found;
}

const char* kind_name(policy::PreemptKind kind) {
  return kind == policy::PreemptKind::Reclaim ? "reclaim" : "in-share";
}

// "shareq-preempted:reclaim,by:N,run:T" in the victim's AdminComment, which slurmdbd keeps with
// the run that started at T (22.05 sends it no SystemComment): the exporter counts
// shareq_preemptions_total from it, once per run. Memory only, under the job write lock.
void append_preempted_word(job_record_t* victim, policy::PreemptKind kind, uint32_t by) {
  ctld::append_admin_word(
      victim, policy::preempted_word(kind == policy::PreemptKind::Reclaim ? "reclaim" : "in_share",
                                     by, victim->start_time));
}

// SystemComment on each victim cons_tres kept, and one log line each.
void record_victims(list_t* preempted, const policy::VictimChoice& choice, const job_record_t* by,
                    const policy::Policy& p, policy::ShareId share, policy::FamilyId family) {
  list_itr_t* it = list_iterator_create(preempted);
  while (auto* victim = static_cast<job_record_t*>(list_next(it))) {
    const auto v = std::find_if(choice.victims.begin(), choice.victims.end(),
                                [&](const policy::Victim& x) { return x.id == victim->job_id; });
    if (v == choice.victims.end()) continue;
    const std::string why = v->kind == policy::PreemptKind::Reclaim
                                ? "share " + p.share_name(share) +
                                      " takes back its quota in family " + p.family(family).name
                                : "a job with a higher --share-priority in share " +
                                      p.share_name(share) + ", family " + p.family(family).name;
    const std::string comment = "shareq: preempted by job " + std::to_string(by->job_id) + " (" +
                                kind_name(v->kind) + "): " + why;
    if (victim->system_comment != nullptr && comment == victim->system_comment) {
      continue;  // already recorded (a grace period repeats the choice every pass)
    }
    ctld::set_system_comment(victim, comment);
    append_preempted_word(victim, v->kind, by->job_id);
    info("shareq: select: JobId=%u preempts JobId=%u (%s)", by->job_id, victim->job_id,
         kind_name(v->kind));
  }
  list_iterator_destroy(it);
}

// cons_tres preempts only what the placement needs, but shareq's limits can need more: a family
// whose capacity is below its partitions' size has idle nodes cons_tres would use, and in-share
// preemption must bring the share back within its quota. Every victim the policy chose is
// preempted, so the job never starts past a limit.
void require_all_victims(list_t** preempted, list_t* victims) {
  if (*preempted == nullptr) *preempted = list_create(nullptr);
  list_itr_t* it = list_iterator_create(victims);
  while (auto* victim = static_cast<job_record_t*>(list_next(it))) {
    if (find_in(*preempted, victim->job_id) == nullptr) list_append(*preempted, victim);
  }
  list_iterator_destroy(it);
}

// The job's victims go to Slurm to preempt: until it starts, decisions see them gone and the job
// running (reclaim_claims.hpp).
void record_claim(const policy::Policy& p, const policy::PendingJob& job,
                  const policy::FamilyRequest& request, const policy::VictimChoice& choice,
                  time_t now) {
  policy::ReclaimClaim claim{job.id, job.share, request.family, request.amount, job.priority,
                             now,    {}};
  for (const policy::Victim& v : choice.victims) claim.victims.push_back(v.id);
  ctld::claim_recorded(p, claim);
}

// Runs cons_tres with exactly `choice`'s victims, in order; SLURM_ERROR when Slurm did not offer
// them all as candidates.
int run_with_victims(const JobTestArgs& a, const policy::VictimChoice& choice,
                     const policy::Policy& p, policy::ShareId share, policy::FamilyId family) {
  list_t* victims = list_create(nullptr);
  for (const policy::Victim& v : choice.victims) {
    if (job_record_t* j = find_in(a.preemptee_candidates, v.id)) list_append(victims, j);
  }
  int rc = SLURM_ERROR;
  if (static_cast<size_t>(list_count(victims)) == choice.victims.size()) {
    rc = forward(a, victims);
    if (rc == SLURM_SUCCESS && a.mode == SELECT_MODE_RUN_NOW && a.preemptee_job_list != nullptr) {
      require_all_victims(a.preemptee_job_list, victims);
      record_victims(*a.preemptee_job_list, choice, a.job_ptr, p, share, family);
    }
  }
  FREE_NULL_LIST(victims);
  return rc;
}

// One job's decision in one family, and what the shim needs to act on it.
struct Act {
  const JobTestArgs& a;
  const policy::Policy& p;
  const policy::PendingJob& job;
  policy::FamilyId family;
  int64_t amount;
  const ctld::RunningSnapshot& snapshot;
  const policy::Decision& decision;
  time_t now;
};

int refuse(job_record_t* job, const std::string& words) {
  set_wait_reason(job, words);
  return SLURM_ERROR;
}

// Pools end only when the job really starts (not while backfill plans).
void end_pools(const Act& act) {
  if (act.a.mode != SELECT_MODE_RUN_NOW || act.decision.end_pools.empty()) return;
  ctld::warm_end_pools(act.decision.end_pools,
                       "reclaimed for job " + std::to_string(act.a.job_ptr->job_id) + " of share " +
                           act.p.share_name(act.job.share),
                       act.now);
}

// The job fits by the numbers but cons_tres found no node with room for it (`rc`): it takes
// back borrowed capacity where it fits, among the decision's reclaim_to_fit candidates that
// Slurm offers, in their order; cons_tres preempts only what the nodes it picks need.
int reclaim_to_fit(const Act& act, int rc) {
  const JobTestArgs& a = act.a;
  if (a.preemptee_candidates == nullptr || act.decision.reclaim_to_fit.empty()) return rc;
  std::unordered_map<uint32_t, job_record_t*> offered_by_slurm;
  list_itr_t* it = list_iterator_create(a.preemptee_candidates);
  while (auto* j = static_cast<job_record_t*>(list_next(it)))
    offered_by_slurm.emplace(j->job_id, j);
  list_iterator_destroy(it);
  list_t* offered = list_create(nullptr);
  policy::VictimChoice order{true, {}, policy::WaitReason::None};
  for (const policy::JobId id : act.decision.reclaim_to_fit) {
    const auto found = offered_by_slurm.find(id);
    if (found == offered_by_slurm.end()) continue;
    list_append(offered, found->second);
    order.victims.push_back({id, policy::PreemptKind::Reclaim});
  }
  if (list_count(offered) > 0) {
    rc = forward(a, offered);
    list_t** taken = a.preemptee_job_list;
    if (rc == SLURM_SUCCESS && a.mode == SELECT_MODE_RUN_NOW && taken != nullptr &&
        *taken != nullptr && list_count(*taken) > 0) {
      record_victims(*taken, order, a.job_ptr, act.p, act.job.share, act.family);
      policy::VictimChoice chosen{true, {}, policy::WaitReason::None};
      list_itr_t* t = list_iterator_create(*taken);
      while (auto* v = static_cast<job_record_t*>(list_next(t))) {
        chosen.victims.push_back({v->job_id, policy::PreemptKind::Reclaim});
      }
      list_iterator_destroy(t);
      record_claim(act.p, act.job, {act.family, act.amount}, chosen, act.now);
    }
  }
  FREE_NULL_LIST(offered);
  return rc;
}

// Verdict Start: cons_tres places the job without preemption; when no node has room, it waits
// with the decision's no_room words, or reclaims to fit.
int start(const Act& act) {
  const JobTestArgs& a = act.a;
  end_pools(act);
  clear_wait_reason(a.job_ptr);
  // cons_tres clears from node_bitmap what it did not pick, also when it fails: the second try
  // starts from the same nodes as the first.
  bitstr_t* nodes = bit_copy(a.node_bitmap);
  int rc = forward(a, nullptr);
  if (rc != SLURM_SUCCESS) {
    bit_copybits(a.node_bitmap, nodes);
    if (!act.decision.no_room.empty()) {
      set_wait_reason(a.job_ptr, act.decision.no_room);
    } else {
      rc = reclaim_to_fit(act, rc);
    }
  }
  FREE_NULL_BITMAP(nodes);
  return rc;
}

// Verdict Preempt: exactly the decision's victims, in order, go to cons_tres.
int preempt(const Act& act) {
  const JobTestArgs& a = act.a;
  if (a.preemptee_candidates == nullptr) return refuse(a.job_ptr, act.decision.words);
  end_pools(act);
  const policy::VictimChoice choice{true, act.decision.victims, policy::WaitReason::None};
  const int rc = run_with_victims(a, choice, act.p, act.job.share, act.family);
  if (rc != SLURM_SUCCESS) return refuse(a.job_ptr, act.decision.words);
  if (a.mode == SELECT_MODE_RUN_NOW && a.preemptee_job_list != nullptr) {
    record_claim(act.p, act.job, {act.family, act.amount}, choice, act.now);
  }
  clear_wait_reason(a.job_ptr);
  return rc;
}

int act_on(const Act& act) {
  if (act.decision.on_pool &&
      start_on_pool(act.a, *act.decision.on_pool, act.snapshot) == SLURM_SUCCESS) {
    clear_wait_reason(act.a.job_ptr);
    return SLURM_SUCCESS;
  }
  switch (act.decision.verdict) {
    case policy::Verdict::Start:
      return start(act);
    case policy::Verdict::Preempt:
      return preempt(act);
    case policy::Verdict::Wait:
      break;
  }
  return refuse(act.a.job_ptr, act.decision.words);
}

// A job with --image starts only once the digest it runs is known: the store's answer to a
// question asked at or after its submission (job_submit's image_digest.hpp). Until then it waits
// saying so; once known, the digest goes into its spank_job_env (job write lock held) for the
// warm-pool key and the node's fetch.
bool image_digest_known(job_record_t* job, time_t now) {
  const char* image = shareq_env_get(job->spank_job_env, job->spank_job_env_size,
                                     shareq_flag_names[SHAREQ_FLAG_IMAGE].env);
  if (image == nullptr || image[0] == '\0' ||
      shareq_env_get(job->spank_job_env, job->spank_job_env_size, "SHAREQ_IMAGE_DIGEST") !=
          nullptr) {
    return true;
  }
  const Result<ImageRef> ref = parse_image_ref(image);
  if (!ref) return true;  // not job_submit's canonical value: the node resolves it itself
  const time_t submitted = job->details != nullptr ? job->details->submit_time : 0;
  const warm::DigestVerdict verdict = ctld::image_digest_for(ref.value(), submitted, now);
  if (!verdict.digest) {
    set_wait_reason(job, verdict.wait_reason);
    return false;
  }
  shareq_env_set(&job->spank_job_env, &job->spank_job_env_size, "SHAREQ_IMAGE_DIGEST",
                 verdict.digest->c_str());
  clear_wait_reason(job);
  last_job_update = now;
  return true;
}

}  // namespace

int job_test(const JobTestArgs& a) {
  job_record_t* job = a.job_ptr;
  if (job == nullptr || job->part_ptr == nullptr || !running_in_slurmctld()) {
    return forward_plain(a, a.preemptee_candidates);
  }
  if (a.mode != SELECT_MODE_TEST_ONLY && !image_digest_known(job, a.now)) {
    return SLURM_ERROR;
  }
  const auto config = ctld::current_config();
  if (!config) return forward(a, a.preemptee_candidates);
  const policy::Policy& p = config->policy;
  const auto family = p.family_of_partition(job->part_ptr->name);
  if (!family) return forward(a, a.preemptee_candidates);

  const auto pending = ctld::pending_job(*config, job, a.now);
  const auto request =
      pending ? std::find_if(pending->requests.begin(), pending->requests.end(),
                             [&](const policy::FamilyRequest& r) { return r.family == *family; })
              : std::vector<policy::FamilyRequest>::const_iterator{};
  const bool fallback_later =
      pending && std::any_of(pending->later.begin(), pending->later.end(),
                             [&](const policy::LaterRequest& r) { return r.family == *family; });
  if (fallback_later && a.mode == SELECT_MODE_TEST_ONLY) {
    return forward(a, a.preemptee_candidates);  // it may run there after its FallbackDelay
  }
  if (!pending || (request == pending->requests.end() && !fallback_later)) {
    set_wait_reason(job, "shareq: account " + std::string(job->account ? job->account : "(none)") +
                             " is not a share of family " + p.family(*family).name);
    return SLURM_ERROR;
  }
  const time_t now = a.now;
  const auto snapshot = ctld::decision_snapshot(config, now);
  if (a.mode == SELECT_MODE_TEST_ONLY) {
    // "Could it ever run": refused only when it never can, else cons_tres.
    const policy::Admission admission =
        policy::admit(snapshot->ledger(), pending->share, *family, request->amount);
    if (admission.reason == policy::WaitReason::LargerThanFamily ||
        admission.reason == policy::WaitReason::NoQuotaInFamily) {
      return refuse(job, policy::describe(admission.reason, snapshot->ledger(), pending->share,
                                          *family, request->amount));
    }
    return forward(a, a.preemptee_candidates);
  }
  policy::PendingJob facts = *pending;
  facts.awaiting_victims = ctld::reclaim_in_flight(job->job_id, now);
  facts.victims_running = facts.awaiting_victims && ctld::claim_victims_running(job->job_id);
  if (const auto pool = ctld::warm_reserved_claim(job, now)) facts.reserved_pool = pool->pool;
  const std::vector<policy::CompletingNode> completing =
      completing_nodes(job->part_ptr, *family, now);
  const policy::ControllerView view{snapshot->ledger(), snapshot->running(), snapshot->held(),
                                    completing, ctld::job_end_allowance_s()};
  const policy::Decision decision = policy::decide(view, facts, *family, now);
  const int64_t amount = fallback_later ? 0 : request->amount;
  return act_on({a, p, facts, *family, amount, *snapshot, decision, now});
}

namespace {

// Why a job that starts in fallback family `family` is not in its home family, as that family's
// decision has it now.
std::string saturated_at_home(const std::shared_ptr<const ctld::LoadedConfig>& config,
                              job_record_t* job, const policy::PendingJob& started,
                              policy::FamilyId family, time_t now) {
  const auto snapshot = ctld::decision_snapshot(config, now);
  const std::vector<policy::CompletingNode> none;
  const policy::ControllerView view{snapshot->ledger(), snapshot->running(), snapshot->held(), none,
                                    ctld::job_end_allowance_s()};
  policy::PendingJob at_home = started;
  at_home.later.clear();
  const policy::Decision home = policy::decide(view, at_home, *started.home, now);
  const time_t eligible =
      job->details != nullptr && job->details->begin_time > 0 ? job->details->begin_time : now;
  return policy::fallback_comment(config->policy, *started.home, family,
                                  std::max<int64_t>(now - eligible, 0), home);
}

}  // namespace

void job_started(job_record_t* job, time_t now) {
  if (job == nullptr || job->part_ptr == nullptr) return;
  const auto config = ctld::current_config();
  if (!config) return;
  const policy::Policy& p = config->policy;
  const auto family = p.family_of_partition(job->part_ptr->name);
  // The failed run before this one, decoded once: it says whether the job's fallback families
  // were open at once, and why it fell back.
  const policy::JobRecord record = ctld::pending_record(job);
  const auto failed = policy::failure_before(record.admin_comment, record.restarts);
  const auto started = policy::as_pending(p, record, now, failed);
  if (!family || !started || !started->home || *started->home == *family) return;
  // After a failed run it fell back at once; else its home family was saturated.
  const std::string note =
      failed ? policy::fallback_after_failure_comment(p, *started->home, *family, *failed)
             : saturated_at_home(config, job, *started, *family, now);
  const std::string cause =
      failed ? std::string(policy::failure_name(failed->cause)) : std::string("saturated");
  ctld::append_system_comment(job, note);
  // For slurmdbd and shareq-exporter's shareq_fallbacks_total: the run that starts now fell back.
  ctld::append_admin_word(
      job, policy::fallback_word(cause, p.family(*started->home).name, job->start_time));
  info("shareq: select: JobId=%u %s", job->job_id, note.c_str());
}

}  // namespace shareq::select
