// Who holds what in each family: usage per share and family, derived from the running jobs and
// the capacity shares hold without a job (HeldCapacity: reserved warm pools).
// All arithmetic saturates; kUnlimited stays unlimited. Every query is O(1): the borrowed and
// lendable totals are kept up to date by add/remove.
//
// The ledger points at its Policy, which must outlive it. Jobs whose share or family id is not
// in the policy (or whose amount is <= 0) are ignored; ids out of range read as 0. remove() of a
// job that was never added never takes a figure below 0.
#pragma once

#include <span>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/policy.hpp"

namespace shareq::policy {

class Ledger {
 public:
  Ledger(const Policy& policy, std::span<const RunningJob> running,
         std::span<const HeldCapacity> held = {});

  void add(const RunningJob& job);        // job started
  void remove(const RunningJob& job);     // job ended or was preempted
  void add(const HeldCapacity& held);     // a reserved warm pool began to wait
  void remove(const HeldCapacity& held);  // it was claimed or ended

  // This ledger without `held`: what a job that claims the warm pool sees, since the pool's
  // holding becomes the job's own usage when it starts on the pool's nodes (never counted twice).
  [[nodiscard]] Ledger without(const HeldCapacity& held) const;

  [[nodiscard]] int64_t usage(ShareId s, FamilyId f) const;
  [[nodiscard]] int64_t used(FamilyId f) const;                 // all shares together
  [[nodiscard]] int64_t idle(FamilyId f) const;                 // capacity - used, never negative
  [[nodiscard]] int64_t borrowed(ShareId s, FamilyId f) const;  // max(0, usage - quota)
  [[nodiscard]] int64_t borrowed_total(FamilyId f) const;
  // What borrowers may hold in total: unassigned capacity plus, for every share, the part of
  // its unused quota that its LendLimit lets others use.
  // A share's own unused quota counts here while it is unused; a borrower's is 0 (it has none).
  [[nodiscard]] int64_t lendable(FamilyId f) const;
  [[nodiscard]] int64_t capacity(FamilyId f) const;  // the family's Capacity (0 out of range)
  [[nodiscard]] int64_t quota(ShareId s, FamilyId f) const { return policy_->quota(s, f); }

  [[nodiscard]] const Policy& policy() const { return *policy_; }

 private:
  [[nodiscard]] bool valid(ShareId s, FamilyId f) const;
  [[nodiscard]] int64_t lend_part(ShareId s, FamilyId f, int64_t usage) const;
  void set_usage(ShareId s, FamilyId f, int64_t usage);
  void change(ShareId s, FamilyId f, int64_t amount, bool adding);

  const Policy* policy_;
  std::vector<int64_t> usage_;           // [share * family_count + family]
  std::vector<int64_t> used_;            // [family]
  std::vector<int64_t> borrowed_total_;  // [family]: sum of borrowed(s, f) over shares
  std::vector<int64_t> lent_;            // [family]: sum of lend_part(s, f) over shares
};

}  // namespace shareq::policy
