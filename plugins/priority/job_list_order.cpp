#include "job_list_order.hpp"

#include "slurmctld_headers.hpp"

namespace shareq::priority {
namespace {

// The job id Slurm's queue sort compares: an array task sorts with its array.
uint32_t sort_id(const job_record_t* job) {
  return job->array_task_id == NO_VAL ? job->job_id : job->array_job_id;
}

time_t submitted(const job_record_t* job) {
  return job->details != nullptr ? job->details->submit_time : 0;
}

// <0 when a goes before b, >0 when after, 0 when either order will do.
int compare(const job_record_t* a, const job_record_t* b) {
  const bool a_pending = IS_JOB_PENDING(a);
  if (a_pending != IS_JOB_PENDING(b)) return a_pending ? -1 : 1;
  if (!a_pending) return 0;
  if (a->priority != b->priority) return a->priority > b->priority ? -1 : 1;
  if (submitted(a) != submitted(b)) return submitted(a) < submitted(b) ? -1 : 1;
  if (sort_id(a) != sort_id(b)) return sort_id(a) < sort_id(b) ? -1 : 1;
  return 0;
}

// list_sort's comparator: qsort over an array of the list's element pointers.
int compare_entries(void* x, void* y) {
  return compare(*static_cast<job_record_t**>(x), *static_cast<job_record_t**>(y));
}

bool in_order() {
  const job_record_t* previous = nullptr;
  bool sorted = true;
  list_itr_t* it = list_iterator_create(job_list);
  while (auto* job = static_cast<job_record_t*>(list_next(it))) {
    if (previous != nullptr && compare(previous, job) > 0) {
      sorted = false;
      break;
    }
    previous = job;
  }
  list_iterator_destroy(it);
  return sorted;
}

}  // namespace

bool order_job_list() {
  if (job_list == nullptr || in_order()) return false;
  list_sort(job_list, compare_entries);
  return true;
}

}  // namespace shareq::priority
