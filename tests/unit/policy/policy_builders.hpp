// Fluent builders for policy tests: a Cluster (shareq.conf as values), running and pending jobs
// by name, and a World that resolves names to ids and applies decisions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "policy/admission.hpp"
#include "policy/jobs.hpp"
#include "policy/ledger.hpp"
#include "policy/policy.hpp"
#include "policy/victims.hpp"

namespace shareq::policy::testing {

inline Limit Unlimited() { return Limit{}; }
inline Limit Amount(int64_t n) { return Limit{Limit::Kind::Amount, n}; }
inline Limit Percent(int64_t p) { return Limit{Limit::Kind::PercentOfQuota, p}; }

// shareq.conf as values. share() lines apply to the last family named in them. ReclaimAfter is
// 0 unless a test sets it (reclaim_after), so that the other rules can be tested at any `now`.
class Cluster {
 public:
  // The shares as listed and nothing else: UnlistedAccounts=refuse (unlisted_borrow() for the
  // implicit share of unlisted accounts).
  Cluster() {
    config_.reclaim_after_s = 0;
    config_.unlisted_accounts = UnlistedAccounts::Refuse;
  }
  Cluster& unlisted_borrow() {
    config_.unlisted_accounts = UnlistedAccounts::Borrow;
    return *this;
  }
  Cluster& family(std::string name, Unit unit, int64_t capacity) {
    config_.families.push_back({name, {name}, unit, capacity, 0});
    return *this;
  }
  Cluster& share(std::string name, std::string family, int64_t quota) {
    config_.shares.push_back({std::move(name), std::move(family), quota, Limit{}, Limit{}, 0});
    return *this;
  }
  // Limits of the last share() line.
  Cluster& borrow_limit(Limit limit) {
    config_.shares.back().borrow_limit = limit;
    return *this;
  }
  Cluster& lend_limit(Limit limit) {
    config_.shares.back().lend_limit = limit;
    return *this;
  }
  // BorrowWeight of the last share() line, in thousandths.
  Cluster& borrow_weight(int64_t thousandths) {
    config_.shares.back().borrow_weight = thousandths;
    return *this;
  }
  Cluster& reclaim_min_runtime(int64_t seconds) {
    config_.reclaim_min_runtime_s = seconds;
    return *this;
  }
  Cluster& reclaim_after(int64_t seconds) {
    config_.reclaim_after_s = seconds;
    return *this;
  }
  Cluster& borrow_order(BorrowOrder order) {
    config_.borrow_order = order;
    return *this;
  }
  // Family=`from` ... Fallback=`to`; FallbackDelay.
  Cluster& fallback(const std::string& from, const std::vector<std::string>& to) {
    for (Family& f : config_.families) {
      if (f.name == from) f.fallback = to;
    }
    return *this;
  }
  Cluster& fallback_delay(int64_t seconds) {
    config_.fallback_delay_s = seconds;
    return *this;
  }
  Cluster& in_share_preemption(bool on) {
    config_.in_share_preemption = on;
    return *this;
  }
  [[nodiscard]] const Config& config() const { return config_; }
  [[nodiscard]] Policy build() const { return Policy::compile(config_); }

 private:
  Config config_;
};

// p4: 4 nodes; a and b own 2 each; no ReclaimMinRuntime.
inline Cluster EvenAB() {
  return Cluster()
      .family("p4", Unit::Node, 4)
      .share("a", "p4", 2)
      .share("b", "p4", 2)
      .reclaim_min_runtime(0);
}

// A running job by names.
class Running {
 public:
  explicit Running(JobId id) : id_(id) {}
  Running& share(std::string name) {
    share_ = std::move(name);
    return *this;
  }
  Running& family(std::string name) {
    family_ = std::move(name);
    return *this;
  }
  Running& amount(int64_t n) {
    amount_ = n;
    return *this;
  }
  Running& priority(int p) {
    priority_ = p;
    return *this;
  }
  Running& started(Time t) {
    started_ = t;
    return *this;
  }

  [[nodiscard]] RunningJob resolve(const Policy& policy) const {
    return {id_,
            policy.share_id(share_).value_or(UINT32_MAX),
            policy.family_id(family_).value_or(UINT32_MAX),
            amount_,
            priority_,
            started_};
  }

 private:
  JobId id_;
  std::string share_;
  std::string family_ = "p4";
  int64_t amount_ = 1;
  int priority_ = 50;
  Time started_ = 0;
};

// A pending job by names; requests in the user's order.
class Pending {
 public:
  explicit Pending(JobId id) : id_(id) {}
  Pending& share(std::string name) {
    share_ = std::move(name);
    return *this;
  }
  Pending& priority(int p) {
    priority_ = p;
    return *this;
  }
  Pending& submitted(Time t) {
    submitted_ = t;
    return *this;
  }
  Pending& request(std::string family, int64_t amount) {
    requests_.emplace_back(std::move(family), amount);
    return *this;
  }
  Pending& not_eligible() {
    eligible_ = false;
    return *this;
  }
  Pending& nice(int64_t value) {
    nice_ = value;
    return *this;
  }

  [[nodiscard]] PendingJob resolve(const Policy& policy) const {
    PendingJob job{
        id_, policy.share_id(share_).value_or(UINT32_MAX), priority_, submitted_, {}, eligible_};
    for (const auto& [family, amount] : requests_) {
      job.requests.push_back({policy.family_id(family).value_or(UINT32_MAX), amount});
    }
    job.nice = nice_;
    return job;
  }

 private:
  JobId id_;
  std::string share_;
  int priority_ = 50;
  Time submitted_ = 0;
  bool eligible_ = true;
  int64_t nice_ = 0;
  std::vector<std::pair<std::string, int64_t>> requests_;
};

// A policy with its running jobs.
struct World {
  Policy policy;
  std::vector<RunningJob> running;

  World(const Cluster& cluster, const std::vector<Running>& jobs) : policy(cluster.build()) {
    for (const Running& job : jobs) running.push_back(job.resolve(policy));
  }

  [[nodiscard]] Ledger ledger() const { return Ledger(policy, running); }
  [[nodiscard]] ShareId share(const std::string& name) const {
    return policy.share_id(name).value_or(UINT32_MAX);
  }
  [[nodiscard]] FamilyId family(const std::string& name) const {
    return policy.family_id(name).value_or(UINT32_MAX);
  }
  [[nodiscard]] int64_t usage(const std::string& share_name, const std::string& family_name) const {
    return ledger().usage(share(share_name), family(family_name));
  }

  // Removes the victims and starts `job` in `family` with `amount` at `now`.
  void apply(const VictimChoice& choice, const PendingJob& job, FamilyId family, int64_t amount,
             Time now) {
    for (const Victim& victim : choice.victims) {
      std::erase_if(running, [&](const RunningJob& r) { return r.id == victim.id; });
    }
    running.push_back({job.id, job.share, family, amount, job.priority, now});
  }
};

inline std::vector<JobId> ids(const VictimChoice& choice) {
  std::vector<JobId> out;
  for (const Victim& v : choice.victims) out.push_back(v.id);
  return out;
}

}  // namespace shareq::policy::testing
