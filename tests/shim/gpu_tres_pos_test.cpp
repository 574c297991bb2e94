// plugins/ctld/slurm_jobs.cpp's position of gres/gpu in the TRES arrays. gpu_tres_pos() runs on
// hot paths under shareq's mutexes (the Jobs registry, the warm pools) and must not take
// assoc_mgr's TRES lock there: it answers from its cache, "not tracked" (-1) included, and asks
// assoc_mgr only when nothing is cached. resolve_gpu_tres_pos(), called once per pass outside
// shareq's locks, asks again until gres/gpu is tracked, so a TRES that appears later is found,
// and once more after a reconfigure asked it to (request_tres_pos_refresh).
//
// assoc_mgr_find_tres_pos is mocked: it counts its calls, answers as the test says, and (in
// checking builds) aborts when the calling thread holds a shareq lock (lock_order.hpp).
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "lock_order.hpp"
#include "fake_ctld_log.hpp"
#include "slurm_jobs.hpp"
#include "slurmctld_headers.hpp"

// Last: cmocka's macros (fail, ...) would rename names in the C++ headers.
extern "C" {
#include <cmocka.h>
}

namespace {

constexpr int kGpuPos = TRES_ARRAY_TOTAL_CNT;
constexpr int kTresCount = kGpuPos + 1;
constexpr int kHotCalls = 100;

int g_lookups = 0;       // calls of assoc_mgr_find_tres_pos
bool g_tracked = false;  // whether gres/gpu is in the TRES table

}  // namespace

extern "C" {

int assoc_mgr_find_tres_pos(slurmdb_tres_rec_t* rec, bool locked) {
  (void)locked;
  shareq::ctld::assert_no_shareq_lock("assoc_mgr_find_tres_pos (assoc_mgr's TRES lock)");
  ++g_lookups;
  const bool gpu = rec != nullptr && rec->type != nullptr && rec->name != nullptr &&
                   std::string(rec->type) == "gres" && std::string(rec->name) == "gpu";
  return gpu && g_tracked ? kGpuPos : -1;
}

// slurm_jobs.cpp's job_list traversals; not reached here.
list_itr_t* list_iterator_create(list_t* l) {
  (void)l;
  return nullptr;
}
void* list_next(list_itr_t* i) {
  (void)i;
  return nullptr;
}
void list_iterator_destroy(list_itr_t* i) { (void)i; }

}  // extern "C"

namespace {

namespace ctld = shareq::ctld;

// A running job of one node holding 2 GPUs (when gres/gpu is tracked).
struct RunningJob {
  RunningJob() {
    part.name = const_cast<char*>("p5");
    job.job_id = 7;
    job.account = const_cast<char*>("prodexp1");
    job.part_ptr = &part;
    job.node_cnt = 1;
    job.job_state = JOB_RUNNING;
    counts[TRES_ARRAY_NODE] = 1;
    counts[kGpuPos] = 2;
    job.tres_req_cnt = counts;
    job.tres_alloc_cnt = counts;
  }
  part_record_t part{};
  job_record_t job{};
  uint64_t counts[kTresCount] = {};
};

size_t lines(const std::string& text) {
  size_t n = 0;
  for (const char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

int setup(void** state) {
  (void)state;
  ctld::forget_tres_pos();
  g_lookups = 0;
  g_tracked = false;
  fake_ctld_lines().clear();
  return 0;
}

// slurmdbd had no gres/gpu: one miss is cached; the hot paths (also under the Jobs mutex) no
// longer ask assoc_mgr, and the one error line is not repeated.
void an_untracked_gpu_is_looked_up_once(void** state) {
  (void)state;
  RunningJob running;
  assert_int_equal(ctld::resolve_gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 1);
  assert_int_equal(lines(fake_ctld_lines()), 1);
  assert_non_null(strstr(fake_ctld_lines().c_str(), "gres/gpu is not a tracked TRES"));
  for (int i = 0; i < kHotCalls; ++i) {
    assert_int_equal(ctld::gpu_tres_pos(), -1);
    assert_int_equal(ctld::requested_gpus(&running.job), 0);
  }
  assert_int_equal(g_lookups, 1);
  for (int i = 0; i < kHotCalls; ++i) ctld::job_allocated(&running.job);  // under Jobs
  assert_int_equal(g_lookups, 1);
  assert_true(ctld::job_holds_allocation(running.job.job_id));
  ctld::job_released(&running.job);
  assert_int_equal(lines(fake_ctld_lines()), 1);
}

// Nothing cached (a start, or forget_tres_pos at reconfigure): the first hot-path call asks,
// the next ones do not.
void a_hot_path_asks_only_while_nothing_is_cached(void** state) {
  (void)state;
  assert_int_equal(ctld::gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 1);
  for (int i = 0; i < kHotCalls; ++i) assert_int_equal(ctld::gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 1);
}

// slurmdbd became reachable later with gres/gpu: the next resolve (a priority pass) finds it,
// the hot paths count GPUs again, and a known position is not asked for again.
void a_resolve_finds_a_gpu_tracked_later(void** state) {
  (void)state;
  RunningJob running;
  assert_int_equal(ctld::resolve_gpu_tres_pos(), -1);
  assert_int_equal(ctld::resolve_gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 2);  // each resolve asks while gres/gpu is not tracked
  g_tracked = true;
  assert_int_equal(ctld::gpu_tres_pos(), -1);  // the hot path keeps the cached miss
  assert_int_equal(g_lookups, 2);
  assert_int_equal(ctld::resolve_gpu_tres_pos(), kGpuPos);
  assert_int_equal(g_lookups, 3);
  for (int i = 0; i < kHotCalls; ++i) {
    assert_int_equal(ctld::gpu_tres_pos(), kGpuPos);
    assert_int_equal(ctld::requested_gpus(&running.job), 2);
  }
  assert_int_equal(ctld::resolve_gpu_tres_pos(), kGpuPos);
  assert_int_equal(g_lookups, 3);
  assert_int_equal(lines(fake_ctld_lines()), 1);  // the miss, logged once
}

// A reconfigure (priority_p_reconfig, maybe under slurmctld's locks) only asks: the hot paths,
// also under shareq's mutexes, keep answering from the cache without asking assoc_mgr, and the
// next resolve (the woken thread, outside every lock) asks again although a position is cached.
void a_reconfigure_asks_only_the_next_resolve(void** state) {
  (void)state;
  RunningJob running;
  g_tracked = true;
  assert_int_equal(ctld::resolve_gpu_tres_pos(), kGpuPos);
  assert_int_equal(g_lookups, 1);
  ctld::request_tres_pos_refresh();
  for (int i = 0; i < kHotCalls; ++i) {
    assert_int_equal(ctld::gpu_tres_pos(), kGpuPos);
    assert_int_equal(ctld::requested_gpus(&running.job), 2);
  }
  for (int i = 0; i < kHotCalls; ++i) ctld::job_allocated(&running.job);  // under Jobs
  ctld::job_released(&running.job);
  assert_int_equal(g_lookups, 1);
  g_tracked = false;  // AccountingStorageTRES lost gres/gpu
  assert_int_equal(ctld::resolve_gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 2);
  assert_int_equal(ctld::gpu_tres_pos(), -1);
  assert_int_equal(g_lookups, 2);
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test_setup(an_untracked_gpu_is_looked_up_once, setup),
      cmocka_unit_test_setup(a_hot_path_asks_only_while_nothing_is_cached, setup),
      cmocka_unit_test_setup(a_resolve_finds_a_gpu_tracked_later, setup),
      cmocka_unit_test_setup(a_reconfigure_asks_only_the_next_resolve, setup),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
