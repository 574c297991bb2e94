// Slurm's locks held for one scope and released however the scope ends. A lock left held by an
// exception (a bad_alloc in the work done under it, caught further up) would stop every
// slurmctld thread that needs it, and the next lock of the same thread returns EDEADLK, which
// Slurm turns into fatal(). Include after the plugin's own Slurm headers (slurmctld_headers.hpp,
// or job_submit's slurm_ctld.hpp).
#pragma once

extern "C" {
#include "src/common/assoc_mgr.h"
#include "src/slurmctld/locks.h"
}

#include "lock_order.hpp"

namespace shareq::ctld {

// lock_slurmctld(locks) .. unlock_slurmctld(locks).
class SlurmctldLocks {
 public:
  explicit SlurmctldLocks(slurmctld_lock_t locks) : locks_(locks) {
    assert_no_shareq_lock("lock_slurmctld");
    lock_slurmctld(locks_);
  }
  ~SlurmctldLocks() { unlock_slurmctld(locks_); }
  SlurmctldLocks(const SlurmctldLocks&) = delete;
  SlurmctldLocks& operator=(const SlurmctldLocks&) = delete;

 private:
  slurmctld_lock_t locks_;
};

// assoc_mgr_lock(&locks) .. assoc_mgr_unlock(&locks).
class AssocMgrLocks {
 public:
  explicit AssocMgrLocks(assoc_mgr_lock_t locks) : locks_(locks) {
    assert_no_shareq_lock("assoc_mgr_lock");
    assoc_mgr_lock(&locks_);
  }
  ~AssocMgrLocks() { assoc_mgr_unlock(&locks_); }
  AssocMgrLocks(const AssocMgrLocks&) = delete;
  AssocMgrLocks& operator=(const AssocMgrLocks&) = delete;

 private:
  assoc_mgr_lock_t locks_;
};

}  // namespace shareq::ctld
