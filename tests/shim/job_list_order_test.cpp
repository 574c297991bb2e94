// plugins/priority/job_list_order.cpp itself, against a fake job_list (an array behind Slurm's
// list API; list_sort is qsort over the element pointers, as in Slurm's list.c) and plain
// job records. What it checks is the order build_job_queue will walk, and that a list already
// in that order is not sorted again.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <memory>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "job_list_order.hpp"
#include "slurmctld_headers.hpp"

struct xlist {
  std::vector<job_record_t*> jobs;
};
struct listIterator {
  xlist* list;
  size_t next;
};

list_t* job_list = nullptr;

namespace {
int g_sorts = 0;
}

extern "C" {
list_itr_t* list_iterator_create(list_t* l) { return new listIterator{l, 0}; }
void* list_next(list_itr_t* i) {
  return i->next < i->list->jobs.size() ? i->list->jobs[i->next++] : nullptr;
}
void list_iterator_destroy(list_itr_t* i) { delete i; }
void list_sort(list_t* l, ListCmpF f) {
  ++g_sorts;
  qsort(l->jobs.data(), l->jobs.size(), sizeof(job_record_t*),
        reinterpret_cast<int (*)(const void*, const void*)>(f));
}
}

namespace {

struct FakeJob {
  job_record_t job{};
  job_details_t details{};
};

class FakeJobs {
 public:
  // Job `id`, pending unless `state` says otherwise, with `priority`, submitted at `submit`.
  job_record_t* add(uint32_t id, uint32_t priority, time_t submit, uint32_t state = JOB_PENDING) {
    auto fake = std::make_unique<FakeJob>();
    fake->job.job_id = id;
    fake->job.array_task_id = NO_VAL;
    fake->job.priority = priority;
    fake->job.job_state = state;
    fake->details.submit_time = submit;
    fake->job.details = &fake->details;
    list_.jobs.push_back(&fake->job);
    owned_.push_back(std::move(fake));
    return list_.jobs.back();
  }
  std::vector<uint32_t> order() const {
    std::vector<uint32_t> ids;
    for (const job_record_t* job : list_.jobs) ids.push_back(job->job_id);
    return ids;
  }
  FakeJobs() { job_list = &list_; }
  ~FakeJobs() { job_list = nullptr; }
  FakeJobs(const FakeJobs&) = delete;
  FakeJobs& operator=(const FakeJobs&) = delete;

 private:
  xlist list_;
  std::vector<std::unique_ptr<FakeJob>> owned_;
};

void expect_order(const FakeJobs& jobs, const std::vector<uint32_t>& expected) {
  const std::vector<uint32_t> got = jobs.order();
  assert_int_equal(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) assert_int_equal(got[i], expected[i]);
}

void pending_jobs_go_by_priority_then_submission_then_id(void** state) {
  (void)state;
  FakeJobs jobs;
  g_sorts = 0;
  jobs.add(1, 100, 10);
  jobs.add(2, 300, 11);
  jobs.add(3, 200, 12);
  jobs.add(5, 300, 13);
  jobs.add(4, 300, 13);  // same priority and submission: lower id first
  jobs.add(6, 300, 9);   // same priority, earlier submission first
  assert_true(shareq::priority::order_job_list());
  expect_order(jobs, {6, 2, 4, 5, 3, 1});
  assert_int_equal(g_sorts, 1);
}

void an_ordered_list_is_left_alone(void** state) {
  (void)state;
  FakeJobs jobs;
  g_sorts = 0;
  jobs.add(2, 300, 11);
  jobs.add(1, 100, 10);
  jobs.add(7, 500, 1, JOB_RUNNING);
  jobs.add(8, 1, 2, JOB_COMPLETE);  // other jobs after the pending ones, in any order
  assert_false(shareq::priority::order_job_list());
  assert_int_equal(g_sorts, 0);
  expect_order(jobs, {2, 1, 7, 8});
}

void other_jobs_go_after_the_pending_ones(void** state) {
  (void)state;
  FakeJobs jobs;
  jobs.add(7, 900, 1, JOB_RUNNING);
  jobs.add(1, 100, 10);
  jobs.add(2, 300, 11);
  assert_true(shareq::priority::order_job_list());
  expect_order(jobs, {2, 1, 7});
}

void a_job_submitted_after_a_ranking_is_put_in_its_place(void** state) {
  (void)state;
  FakeJobs jobs;
  jobs.add(1, 300, 10);
  jobs.add(2, 100, 11);
  assert_false(shareq::priority::order_job_list());
  jobs.add(3, 200, 12);  // Slurm appends new jobs to job_list
  assert_true(shareq::priority::order_job_list());
  expect_order(jobs, {1, 3, 2});
}

void array_tasks_sort_with_their_array(void** state) {
  (void)state;
  FakeJobs jobs;
  jobs.add(20, 100, 10);
  job_record_t* task = jobs.add(31, 100, 10);  // task 1 of array 15
  task->array_job_id = 15;
  task->array_task_id = 1;
  assert_true(shareq::priority::order_job_list());
  expect_order(jobs, {31, 20});
}

void no_job_list_is_no_work(void** state) {
  (void)state;
  job_list = nullptr;
  assert_false(shareq::priority::order_job_list());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pending_jobs_go_by_priority_then_submission_then_id),
      cmocka_unit_test(an_ordered_list_is_left_alone),
      cmocka_unit_test(other_jobs_go_after_the_pending_ones),
      cmocka_unit_test(a_job_submitted_after_a_ranking_is_put_in_its_place),
      cmocka_unit_test(array_tasks_sort_with_their_array),
      cmocka_unit_test(no_job_list_is_no_work),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
