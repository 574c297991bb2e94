// plugins/priority/job_visibility.cpp itself, against fake answers from Slurm (validate_operator,
// assoc_mgr_is_user_acct_coord) that count how often they are asked: each may go to slurmdbd
// under sprio's job read lock. What it checks is which jobs the caller sees under
// PrivateData=jobs, that each question is asked once per sprio call (once per account), and that
// with no user list in assoc_mgr (slurmdbd unreachable when slurmctld started) none is asked.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>

#include <string>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "job_visibility.hpp"
#include "slurmctld_headers.hpp"

slurm_conf_t slurm_conf;
list_t* assoc_mgr_user_list = nullptr;
void* acct_db_conn = nullptr;

namespace {

constexpr uid_t kSlurmUser = 64030;
int g_operator_asked = 0;
int g_coordinator_asked = 0;
bool g_caller_is_operator = false;
std::string g_coordinated;  // the one account the caller coordinates
int g_some_list = 0;        // what assoc_mgr_user_list points at when it has users

}  // namespace

extern "C" {
void assoc_mgr_lock(assoc_mgr_lock_t* /*locks*/) {}
void assoc_mgr_unlock(assoc_mgr_lock_t* /*locks*/) {}
bool validate_operator(uid_t uid) {
  ++g_operator_asked;
  return uid == 0 || uid == kSlurmUser || g_caller_is_operator;
}
bool validate_operator_user_rec(slurmdb_user_rec_t* user) {
  return user->uid == 0 || user->uid == kSlurmUser || user->admin_level >= SLURMDB_ADMIN_OPERATOR;
}
#if SHAREQ_SLURM_SERIES(22, 5)
bool assoc_mgr_is_user_acct_coord(void* /*db_conn*/, uint32_t /*uid*/, char* account) {
#else
bool assoc_mgr_is_user_acct_coord(void* /*db_conn*/, uint32_t /*uid*/, char* account,
                                  bool /*locked*/) {
#endif
  ++g_coordinator_asked;
  return account != nullptr && g_coordinated == account;
}
}

namespace {

struct Jobs {
  std::vector<job_record_t> records;
  std::vector<std::string> accounts;
};

// Two pending jobs of user 2000 in each of accounts a, b and c, and one of user 1000 in a.
Jobs queue() {
  Jobs jobs;
  jobs.accounts = {"a", "a", "b", "b", "c", "c", "a"};
  jobs.records.resize(jobs.accounts.size());
  for (size_t i = 0; i < jobs.records.size(); ++i) {
    jobs.records[i].job_id = static_cast<uint32_t>(100 + i);
    jobs.records[i].user_id = i + 1 == jobs.records.size() ? 1000 : 2000;
    jobs.records[i].account = jobs.accounts[i].data();
  }
  return jobs;
}

// The ids of the jobs `caller` sees, in one sprio call.
std::vector<uint32_t> seen_by(uid_t caller, Jobs& jobs) {
  shareq::priority::JobVisibility visibility(caller);
  std::vector<uint32_t> seen;
  for (const job_record_t& job : jobs.records) {
    if (visibility.sees(&job)) seen.push_back(job.job_id);
  }
  return seen;
}

int setup(void** /*state*/) {
  slurm_conf = {};
  slurm_conf.private_data = PRIVATE_DATA_JOBS;
  slurm_conf.slurm_user_id = kSlurmUser;
  assoc_mgr_user_list = reinterpret_cast<list_t*>(&g_some_list);
  g_operator_asked = g_coordinator_asked = 0;
  g_caller_is_operator = false;
  g_coordinated = "b";
  return 0;
}

void a_user_sees_their_jobs_and_those_of_the_accounts_they_coordinate(void** /*state*/) {
  Jobs jobs = queue();
  const std::vector<uint32_t> want = {102, 103, 106};
  assert_true(seen_by(1000, jobs) == want);
  assert_int_equal(g_operator_asked, 1);
  assert_int_equal(g_coordinator_asked, 3);  // a, b and c, once each
}

void an_operator_sees_every_job_asked_once(void** /*state*/) {
  g_caller_is_operator = true;
  Jobs jobs = queue();
  assert_int_equal(seen_by(1000, jobs).size(), jobs.records.size());
  assert_int_equal(g_operator_asked, 1);
  assert_int_equal(g_coordinator_asked, 0);
}

void without_a_user_list_nothing_is_asked_and_only_root_and_slurm_user_see_all(void** /*state*/) {
  assoc_mgr_user_list = nullptr;
  g_caller_is_operator = true;  // slurmdbd would say so; nobody can ask it
  Jobs jobs = queue();
  const std::vector<uint32_t> own = {106};
  assert_true(seen_by(1000, jobs) == own);
  assert_int_equal(seen_by(0, jobs).size(), jobs.records.size());
  assert_int_equal(seen_by(kSlurmUser, jobs).size(), jobs.records.size());
  assert_int_equal(g_operator_asked, 0);
  assert_int_equal(g_coordinator_asked, 0);
}

void without_private_data_everyone_sees_every_job(void** /*state*/) {
  slurm_conf.private_data = 0;
  Jobs jobs = queue();
  assert_int_equal(seen_by(1000, jobs).size(), jobs.records.size());
  assert_int_equal(g_operator_asked + g_coordinator_asked, 0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(a_user_sees_their_jobs_and_those_of_the_accounts_they_coordinate,
                             setup),
      cmocka_unit_test_setup(an_operator_sees_every_job_asked_once, setup),
      cmocka_unit_test_setup(
          without_a_user_list_nothing_is_asked_and_only_root_and_slurm_user_see_all, setup),
      cmocka_unit_test_setup(without_private_data_everyone_sees_every_job, setup),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
