// Fluent builders for warm-pool tests: Ended(7).user("alice").nodes({"n1"}).keep(900), Pending(8)
// with the same facts, and a registry with chosen settings.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "warm/registry.hpp"

namespace shareq::warm::testing {

inline const std::string kImageA(64, 'a');
inline const std::string kImageB(64, 'b');

// The facts both kinds of job share; defaults make an ended job and a pending job match.
template <typename Self>
class JobFacts {
 public:
  Self& user(std::string name) {
    user_ = std::move(name);
    return self();
  }
  Self& uid(uint32_t id) {
    uid_ = id;
    return self();
  }
  Self& account(std::string name) {
    account_ = std::move(name);
    return self();
  }
  Self& image(std::string digest) {
    image_ = std::move(digest);
    return self();
  }

 protected:
  Self& self() { return static_cast<Self&>(*this); }
  std::string user_ = "alice";
  uint32_t uid_ = 1001;
  std::string account_ = "prodexp1";
  std::string image_ = kImageA;
};

class Ended : public JobFacts<Ended> {
 public:
  explicit Ended(JobId id) : id_(id) {}
  Ended& partition(std::string name) {
    partition_ = std::move(name);
    return *this;
  }
  Ended& nodes(std::vector<std::string> names) {
    nodes_ = std::move(names);
    return *this;
  }
  Ended& keep(int64_t seconds) {
    keep_ = seconds;
    return *this;
  }
  operator EndedJob() const {  // NOLINT(google-explicit-constructor)
    return EndedJob{id_, user_, uid_, account_, partition_, image_, nodes_, keep_};
  }

 private:
  JobId id_;
  std::string partition_ = "p4";
  std::vector<std::string> nodes_ = {"n1", "n2"};
  int64_t keep_ = 900;
};

class Pending : public JobFacts<Pending> {
 public:
  explicit Pending(JobId id) : id_(id) {}
  Pending& partitions(std::vector<std::string> names) {
    partitions_ = std::move(names);
    return *this;
  }
  Pending& node_count(uint32_t n) {
    nodes_ = n;
    return *this;
  }
  operator JobToStart() const {  // NOLINT(google-explicit-constructor)
    return JobToStart{id_, user_, uid_, account_, partitions_, image_, nodes_};
  }

 private:
  JobId id_;
  std::vector<std::string> partitions_ = {"p4"};
  uint32_t nodes_ = 2;
};

inline WarmSettings Settings(WarmPoolMode mode = WarmPoolMode::Prefer) {
  WarmSettings settings;
  settings.mode = mode;
  settings.max_keep_alive_s = 3600;
  settings.max_lifetime_s = 10'000;
  settings.warm_dir_root = "/var/lib/shareq/warm";
  return settings;
}

// A pool made by job `id` ending at `now` (must succeed).
inline WarmPool MakePool(WarmPoolRegistry& registry, const EndedJob& job, Time now) {
  auto end = registry.on_job_end(job, EndCause::Completed, now);
  return *end.pool;
}

inline std::vector<PoolId> Ids(const std::vector<WarmPool>& pools) {
  std::vector<PoolId> ids;
  for (const WarmPool& pool : pools) ids.push_back(pool.id);
  return ids;
}

}  // namespace shareq::warm::testing
