#include "assoc_usage.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "policy/fair_share.hpp"
#include "policy/usage.hpp"
#include "slurmctld_headers.hpp"
#include "slurm_lock_guards.hpp"

namespace shareq::priority {
namespace {

void decay_usage(slurmdb_assoc_usage_t* usage, double factor, int tres_cnt) {
  usage->usage_raw *= factor;
  for (int i = 0; i < tres_cnt; ++i) usage->usage_tres_raw[i] *= factor;
  usage->grp_used_wall *= factor;
}

// Top-down, like multifactor's _set_children_usage_efctv, but users too, and each
// association's fs_factor and level_fs: with PriorityFlags' default FAIR_TREE, sshare prints
// those fields instead of calling priority_p_calc_fs_factor.
void set_children_usage_efctv(list_t* children) {
  if (children == nullptr || list_count(children) == 0) return;
  list_itr_t* it = list_iterator_create(children);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    set_assoc_usage(assoc);
    assoc->usage->fs_factor = fs_factor(assoc->usage->usage_efctv, assoc->usage->shares_norm);
    assoc->usage->level_fs =
        assoc->usage->usage_efctv > 0
            ? static_cast<long double>(assoc->usage->shares_norm) / assoc->usage->usage_efctv
            : static_cast<long double>(INFINITY);
    if (assoc->user == nullptr) set_children_usage_efctv(assoc->usage->children_list);
  }
  list_iterator_destroy(it);
}

// Adds usage to an association and every parent up to root.
void add_to_chain(slurmdb_assoc_rec_t* assoc, long double real, double seconds,
                  const std::vector<long double>& tres) {
  for (slurmdb_assoc_rec_t* a = assoc; a != nullptr; a = a->usage->parent_assoc_ptr) {
    a->usage->usage_raw += real;
    a->usage->grp_used_wall += seconds;
    for (size_t i = 0; i < tres.size(); ++i) a->usage->usage_tres_raw[i] += tres[i];
  }
}

// Adds `seconds` of the job's allocation to its association chain and QOS.
void add_job_usage(job_record_t* job, double seconds, int tres_cnt) {
  if (seconds <= 0 || job->assoc_ptr == nullptr) return;
  const double billable = calc_job_billable_tres(job, job->start_time, true);
  const long double real = static_cast<long double>(seconds) * billable;
  std::vector<long double> tres(static_cast<size_t>(tres_cnt), 0.0L);
  if (job->tres_alloc_cnt != nullptr) {
    for (int i = 0; i < tres_cnt; ++i) {
      const uint64_t n = job->tres_alloc_cnt[i];
      if (n != 0 && n != NO_CONSUME_VAL64) tres[i] = static_cast<long double>(seconds) * n;
    }
  }
  if (job->qos_ptr != nullptr && job->qos_ptr->usage != nullptr) {
    job->qos_ptr->usage->usage_raw += real;
    job->qos_ptr->usage->grp_used_wall += seconds;
    for (int i = 0; i < tres_cnt; ++i) job->qos_ptr->usage->usage_tres_raw[i] += tres[i];
  }
  add_to_chain(job->assoc_ptr, real, seconds, tres);
}

// The association a reserved pool accrues on: its owner's, for its account (and partition, when
// the owner has a partition association). nullptr when there is none. Assoc lock held.
slurmdb_assoc_rec_t* owner_assoc(const ctld::ReservedPool& pool) {
  slurmdb_assoc_rec_t rec{};
  rec.acct = const_cast<char*>(pool.account.c_str());
  rec.uid = pool.uid;
  rec.partition = const_cast<char*>(pool.partition.c_str());
  slurmdb_assoc_rec_t* found = nullptr;
  if (assoc_mgr_fill_in_assoc(acct_db_conn, &rec, 0, &found, true) != SLURM_SUCCESS) return nullptr;
  return found;
}

// A reserved pool's nodes held for `seconds`, on its owner's association chain.
void add_pool_usage(const ctld::ReservedPool& pool, double seconds, int tres_cnt) {
  if (seconds <= 0) return;
  slurmdb_assoc_rec_t* assoc = owner_assoc(pool);
  if (assoc == nullptr) return;
  long double billable = 0;
  std::vector<long double> tres(static_cast<size_t>(tres_cnt), 0.0L);
  for (const std::string& name : pool.nodes) {
    node_record_t* node = find_node_record(const_cast<char*>(name.c_str()));
    if (node == nullptr || node->tres_cnt == nullptr) continue;
    const uint64_t billing = node->tres_cnt[TRES_ARRAY_BILLING];
    billable += static_cast<long double>(billing > 0 ? billing : node->tres_cnt[TRES_ARRAY_CPU]);
    for (int i = 0; i < tres_cnt; ++i) {
      tres[i] += static_cast<long double>(seconds) * static_cast<long double>(node->tres_cnt[i]);
    }
  }
  add_to_chain(assoc, static_cast<long double>(seconds) * billable, seconds, tres);
}

int64_t accrual_start(const job_record_t* job, int64_t last_ran) {
  return std::max<int64_t>(last_ran, job->start_time);
}

}  // namespace

void accrue_associations(int64_t last_ran, int64_t now, int64_t half_life_s,
                         std::span<const ctld::ReservedPool> reserved) {
  if (assoc_mgr_root_assoc == nullptr || assoc_mgr_assoc_list == nullptr) return;
  assoc_mgr_lock_t locks{};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  locks.tres = READ_LOCK;
  const ctld::AssocMgrLocks held(locks);
  const int tres_cnt = slurmctld_tres_cnt;
  const int64_t elapsed = now - last_ran;
  if (elapsed > 0) {
    const double factor = policy::decay_factor(elapsed, half_life_s);
    if (factor != 1.0) {
      list_itr_t* it = list_iterator_create(assoc_mgr_assoc_list);
      while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
        decay_usage(assoc->usage, factor, tres_cnt);
        if (assoc->leaf_usage != nullptr && assoc->leaf_usage != assoc->usage) {
          decay_usage(assoc->leaf_usage, factor, tres_cnt);
        }
      }
      list_iterator_destroy(it);
      if (assoc_mgr_qos_list != nullptr) {
        it = list_iterator_create(assoc_mgr_qos_list);
        while (auto* qos = static_cast<slurmdb_qos_rec_t*>(list_next(it))) {
          if ((qos->flags & QOS_FLAG_NO_DECAY) || qos->usage == nullptr) continue;
          qos->usage->usage_raw *= factor;
          for (int i = 0; i < tres_cnt; ++i) qos->usage->usage_tres_raw[i] *= factor;
          qos->usage->grp_used_wall *= factor;
        }
        list_iterator_destroy(it);
      }
    }
    if (job_list != nullptr) {
      list_itr_t* it = list_iterator_create(job_list);
      while (auto* job = static_cast<job_record_t*>(list_next(it))) {
        if (!IS_JOB_RUNNING(job)) continue;
        add_job_usage(job, static_cast<double>(now - accrual_start(job, last_ran)), tres_cnt);
      }
      list_iterator_destroy(it);
    }
    for (const ctld::ReservedPool& pool : reserved) {
      add_pool_usage(pool, static_cast<double>(now - std::max(last_ran, pool.since)), tres_cnt);
    }
  }
  set_children_usage_efctv(assoc_mgr_root_assoc->usage->children_list);
}

void accrue_job_tail(job_record_t* job, int64_t last_ran) {
  if (last_ran <= 0 || job->start_time == 0) return;
  const int64_t end = job->end_time > 0 ? job->end_time : time(nullptr);
  const int64_t seconds = end - accrual_start(job, last_ran);
  if (seconds <= 0) return;
  assoc_mgr_lock_t locks{};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  locks.tres = READ_LOCK;
  const ctld::AssocMgrLocks held(locks);
  add_job_usage(job, static_cast<double>(seconds), slurmctld_tres_cnt);
}

void set_assoc_usage(slurmdb_assoc_rec_t* assoc) {
  // multifactor's set_assoc_usage_norm and _set_assoc_usage_efctv (classic branch).
  assoc->usage->usage_norm =
      policy::normalized_usage(assoc->usage->usage_raw, assoc_mgr_root_assoc->usage->usage_raw);
  if (assoc->usage->fs_assoc_ptr == nullptr || assoc->usage->fs_assoc_ptr == assoc_mgr_root_assoc) {
    assoc->usage->usage_efctv = assoc->usage->usage_norm;
  } else if (assoc->shares_raw == SLURMDB_FS_USE_PARENT) {
    assoc->usage->usage_efctv = assoc->usage->fs_assoc_ptr->usage->usage_efctv;
  } else {
    assoc->usage->usage_efctv = policy::effective_usage(
        assoc->usage->usage_norm, assoc->usage->fs_assoc_ptr->usage->usage_efctv, assoc->shares_raw,
        assoc->usage->level_shares);
  }
}

double fs_factor(long double usage_efctv, long double shares_norm) {
  return policy::fair_share_factor(usage_efctv, shares_norm, slurm_conf.fs_dampening_factor);
}

void release_run_seconds(job_record_t* job) {
  if (job->tres_alloc_cnt == nullptr) return;
  const int tres_cnt = slurmctld_tres_cnt;
  const uint64_t limit_secs = static_cast<uint64_t>(job->time_limit) * 60;
  std::vector<uint64_t> unused(static_cast<size_t>(tres_cnt), 0);
  for (int i = 0; i < tres_cnt; ++i) {
    if (job->tres_alloc_cnt[i] == NO_CONSUME_VAL64) continue;
    unused[i] = job->tres_alloc_cnt[i] * limit_secs;
  }
  assoc_mgr_lock_t locks{};
  locks.assoc = WRITE_LOCK;
  locks.qos = WRITE_LOCK;
  const ctld::AssocMgrLocks held(locks);
  const auto subtract = [&](uint64_t* run_secs) {
    for (int i = 0; i < tres_cnt; ++i) {
      run_secs[i] = unused[i] > run_secs[i] ? 0 : run_secs[i] - unused[i];
    }
  };
  if (job->qos_ptr != nullptr && job->qos_ptr->usage != nullptr) {
    subtract(job->qos_ptr->usage->grp_used_tres_run_secs);
  }
  for (slurmdb_assoc_rec_t* a = job->assoc_ptr; a != nullptr; a = a->usage->parent_assoc_ptr) {
    subtract(a->usage->grp_used_tres_run_secs);
  }
}

}  // namespace shareq::priority
