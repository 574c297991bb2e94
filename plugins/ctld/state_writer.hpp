// The controller's state files are written on a thread of their own: a change made under
// slurmctld's locks (a warm pool made at a job's end, a reclaim recorded by the scheduler) only
// queues the new text, so no Slurm lock is ever held across a write, an fsync or a slow
// StateSaveLocation (an NFS mount). The latest text queued for a file wins; each write replaces
// the file whole (state_file.hpp). Like Slurm's own state saves, what was queued in the last
// moments before a crash of slurmctld may be lost; an orderly shutdown writes everything
// (flush_state_saves at fini, and when the library is unloaded).
#pragma once

#include <condition_variable>
#include <map>
#include <string>
#include <thread>

#include "ctld_api.hpp"
#include "lock_order.hpp"
#include "state_file.hpp"

namespace shareq::ctld {

// The writer thread and its queue (ControllerState::writer). Its thread starts with the first
// save; the destructor writes what is queued and joins it.
class StateWriter {
 public:
  StateWriter() = default;
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;
  ~StateWriter();

  void queue(const std::string& path, std::string text, Durability durability, const char* what);
  void flush();

 private:
  struct Pending {
    std::string text;
    Durability durability = Durability::MachineCrash;
    const char* what = "";
  };
  void run();

  RankedMutex mutex_{LockRank::StateWriter};
  std::condition_variable_any wake_;
  std::condition_variable_any idle_;
  std::map<std::string, Pending> queued_;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

// Queues `text` for `path` (replacing what was queued for it) and returns at once. `what` names
// the file in a failure's log line ("warm", "reclaim").
SHAREQ_CTLD_API void save_state_later(const std::string& path, std::string text,
                                      Durability durability, const char* what);

// Writes everything queued now and returns when it is written.
SHAREQ_CTLD_API void flush_state_saves();

}  // namespace shareq::ctld
