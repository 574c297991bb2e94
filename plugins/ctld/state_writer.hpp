// The controller's state files are written on a thread of their own: a change made under
// slurmctld's locks (a warm pool made at a job's end, a reclaim recorded by the scheduler) only
// queues the new text, so no Slurm lock is ever held across a write, an fsync or a slow
// StateSaveLocation (an NFS mount). The latest text queued for a file wins; each write replaces
// the file whole (state_file.hpp). Like Slurm's own state saves, what was queued in the last
// moments before a crash of slurmctld may be lost; an orderly shutdown writes everything
// (flush_state_saves at fini, and when the library is unloaded).
//
// A write that fails (StateSaveLocation full, read-only, or a directory where the file goes) is
// tried again, 1 s later and then twice as late each time up to a minute, until it succeeds or a
// newer text for the file replaces it: a file is never left stale because nothing changed after
// one failed save. The first failure, and each later failure whose reason differs, is reported
// as an error; the write that succeeds after failures is reported too.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ctld_api.hpp"
#include "lock_order.hpp"
#include "state_file.hpp"

namespace shareq::ctld {

// How long a failed write waits before it is tried again: `first`, doubled each time, at most
// `max`.
struct StateWriteRetry {
  std::chrono::milliseconds first{1000};
  std::chrono::milliseconds max{60'000};
};

// The writer thread and its queue (ControllerState::writer). Its thread starts with the first
// save; the destructor writes what is queued (one more try for a failed write) and joins it.
class StateWriter {
 public:
  // Told each failure to write (error = true) and each write that succeeded after failures.
  // Called on the writer's thread, no lock of the writer held.
  using Report = std::function<void(bool error, const std::string& message)>;
  using Retry = StateWriteRetry;

  explicit StateWriter(Report report, Retry retry = {});
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;
  ~StateWriter();

  void queue(const std::string& path, std::string text, Durability durability, const char* what);
  // Writes what is queued now, with one more try for each file whose write failed, and returns
  // when that is done (a file that still cannot be written stays queued for retries).
  void flush();

 private:
  struct Pending {
    std::string text;
    Durability durability = Durability::MachineCrash;
    const char* what = "";
  };
  struct Failed {
    Pending pending;
    int failures = 0;
    std::string why;
    std::chrono::steady_clock::time_point retry_at;
  };
  struct Outcome {
    std::string path;
    std::optional<std::string> why;  // nullopt: written
  };
  // The thread's body: run() until it returns. An exception (a bad_alloc) would end slurmctld
  // from a std::thread; it is reported instead and the writer goes on. The batch being written
  // then may be lost: each file's next change queues its whole text again.
  void run_reporting();
  void recover(const char* what);
  void run();
  void wait_for_work(std::unique_lock<RankedMutex>& lock);
  // Queues each failed write whose retry is due (every one with `all`), unless a newer text for
  // its file is queued.
  void queue_due_retries(bool all);
  // Keeps each failed write for a retry; returns what to report, (error, message).
  std::vector<std::pair<bool, std::string>> record(const std::vector<Outcome>& outcomes,
                                                   std::map<std::string, Pending>& batch,
                                                   bool last_pass);
  [[nodiscard]] std::chrono::milliseconds retry_delay(int failures) const;

  Report report_;
  Retry retry_;
  RankedMutex mutex_{LockRank::StateWriter};
  std::condition_variable_any wake_;
  std::condition_variable_any idle_;
  std::map<std::string, Pending> queued_;
  std::map<std::string, Failed> failed_;  // tried again at retry_at, unless queued_ has newer
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

// Queues `text` for `path` (replacing what was queued for it) and returns at once. `what` names
// the file in a failure's log line ("warm", "reclaim").
SHAREQ_CTLD_API void save_state_later(const std::string& path, std::string text,
                                      Durability durability, const char* what);

// Writes everything queued now and returns when it is written (or failed once more).
SHAREQ_CTLD_API void flush_state_saves();

}  // namespace shareq::ctld
