// Builders for the tool's tests: jobs as slurmctld would report them.
#pragma once

#include <string>
#include <vector>

#include "cluster_data.hpp"

namespace shareq::tool::testing {

// The families of the report tests, p5: research has 10 of 32 GPUs and may borrow 16 more;
// prodexp2 has the other 22 and all 4 nodes of p4. A test adds its own settings after it.
inline const std::string kReportFamilies =
    "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
    "Family=p4 Partitions=p4 Capacity=node=4\n"
    "Share=Research Family=p5 Quota=gres/gpu=10 BorrowLimit=gres/gpu=16\n"
    "Share=ProdExp2 Family=p5 Quota=gres/gpu=22\n"
    "Share=ProdExp2 Family=p4 Quota=node=4\n";
inline constexpr int64_t kReportNow = 100000;

class Job {
 public:
  explicit Job(uint32_t id) {
    info_.id = id;
    info_.user = "alice";
  }
  Job& user(std::string name) {
    info_.user = std::move(name);
    return *this;
  }
  // A pending job's expected start, as Slurm's backfill sets it (job_info's start_time).
  Job& expected_start(int64_t at) {
    info_.start_time = at;
    return *this;
  }
  Job& share(const std::string& account) {
    info_.account = account;
    return *this;
  }
  Job& priority(int p) {
    info_.admin_comment =
        "shareq:share=" + info_.account + ",priority=" + std::to_string(p) + ",keep_alive=0";
    return *this;
  }
  Job& slurm_priority(uint32_t p) {
    info_.priority = p;
    return *this;
  }
  Job& partitions(std::vector<std::string> p) {
    info_.partitions = std::move(p);
    return *this;
  }
  Job& gpus(int64_t g) {
    info_.gpus = g;
    info_.nodes = (g + 7) / 8;
    return *this;
  }
  Job& nodes(int64_t n) {
    info_.nodes = n;
    return *this;
  }
  Job& running(int64_t start, std::string nodes = "p5n1") {
    info_.state = JobState::Running;
    info_.state_name = "RUNNING";
    info_.start_time = start;
    info_.node_list = std::move(nodes);
    return *this;
  }
  Job& pending(int64_t submit = 0) {
    info_.state = JobState::Pending;
    info_.state_name = "PENDING";
    info_.submit_time = submit;
    if (info_.priority == 0) info_.priority = 100;
    return *this;
  }
  Job& reason(std::string r) {
    info_.reason = std::move(r);
    return *this;
  }
  Job& comment(std::string c) {
    info_.system_comment = std::move(c);
    return *this;
  }
  Job& state(JobState s, std::string name) {
    info_.state = s;
    info_.state_name = std::move(name);
    return *this;
  }
  operator JobInfo() const { return info_; }  // NOLINT(google-explicit-constructor)

 private:
  JobInfo info_;
};

}  // namespace shareq::tool::testing
