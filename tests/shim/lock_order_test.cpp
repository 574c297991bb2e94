// plugins/ctld/lock_order.cpp: the lock order check of SHAREQ_LOCK_ORDER_CHECK builds. An
// inversion, a lock taken twice, or a Slurm lock taken under a shareq lock aborts the process with
// a line naming both locks; each such case runs in a child process, whose end and words are
// checked.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csetjmp>  // cmocka.h needs jmp_buf, va_list and size_t declared before it
#include <cstdarg>
#include <cstddef>
#include <csignal>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>

extern "C" {
#include <cmocka.h>
}

#include "lock_order.hpp"

namespace {

using shareq::ctld::LockRank;
using shareq::ctld::RankedLock;
using shareq::ctld::RankedMutex;

int g_report_fd = -1;

void report_to_pipe(const char* line) {
  const ssize_t ignored = write(g_report_fd, line, std::strlen(line));
  (void)ignored;
}

struct ChildEnd {
  bool aborted = false;
  std::string report;
};

// Runs `body` in a child process with the reporter writing to a pipe.
ChildEnd run_in_child(const std::function<void()>& body) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  const pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    g_report_fd = fds[1];
    shareq::ctld::set_lock_order_reporter(&report_to_pipe);
    body();
    _exit(0);
  }
  close(fds[1]);
  ChildEnd end;
  char buf[512];
  ssize_t n = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) end.report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  end.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  if (!end.aborted) assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return end;
}

void skip_unless_checked() {
  if (!shareq::ctld::kCheckLockOrder) skip();
}

void locks_in_order_pass(void** /*state*/) {
  RankedMutex warm{LockRank::WarmPools};
  RankedMutex jobs{LockRank::Jobs};
  RankedMutex writer{LockRank::StateWriter};
  {
    const RankedLock a(warm);
    const RankedLock b(jobs);
    const RankedLock c(writer);
  }
  { const RankedLock c(writer); }
  { const RankedLock a(warm); }  // would abort if the released `writer` still counted as held
  shareq::ctld::assert_no_shareq_lock("nothing");  // aborts if anything were still counted held
}

void an_inversion_aborts_naming_both_locks(void** /*state*/) {
  skip_unless_checked();
  const ChildEnd end = run_in_child([] {
    RankedMutex jobs{LockRank::Jobs};
    RankedMutex warm{LockRank::WarmPools};
    const RankedLock a(jobs);
    const RankedLock b(warm);
  });
  assert_true(end.aborted);
  assert_non_null(std::strstr(end.report.c_str(), "taking WarmPools while holding Jobs"));
}

void a_lock_taken_twice_aborts_instead_of_deadlocking(void** /*state*/) {
  skip_unless_checked();
  const ChildEnd end = run_in_child([] {
    RankedMutex claims{LockRank::Claims};
    const RankedLock a(claims);
    const RankedLock b(claims);
  });
  assert_true(end.aborted);
  assert_non_null(std::strstr(end.report.c_str(), "taking Claims while holding Claims"));
}

void a_slurm_lock_under_a_shareq_lock_aborts(void** /*state*/) {
  skip_unless_checked();
  const ChildEnd end = run_in_child([] {
    RankedMutex usage{LockRank::Usage};
    const RankedLock a(usage);
    shareq::ctld::assert_no_shareq_lock("lock_slurmctld");
  });
  assert_true(end.aborted);
  assert_non_null(std::strstr(end.report.c_str(), "lock_slurmctld while holding Usage"));
}

// A condition variable's wait gives the lock up and takes it again: the check follows.
void a_condition_wait_keeps_the_count(void** /*state*/) {
  RankedMutex signal{LockRank::RecalcSignal};
  std::condition_variable_any wake;
  {
    std::unique_lock<RankedMutex> lock(signal);
    wake.wait_for(lock, std::chrono::milliseconds(1));
  }
  shareq::ctld::assert_no_shareq_lock("after the wait");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(locks_in_order_pass),
      cmocka_unit_test(an_inversion_aborts_naming_both_locks),
      cmocka_unit_test(a_lock_taken_twice_aborts_instead_of_deadlocking),
      cmocka_unit_test(a_slurm_lock_under_a_shareq_lock_aborts),
      cmocka_unit_test(a_condition_wait_keeps_the_count),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
