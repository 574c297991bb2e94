// shareq.conf as the whole controller sees it: loaded on first use, reloaded when the file
// changes (priority/shareq's thread looks at it at most once a second, at each of its passes) and
// after `scontrol reconfigure` (the reconfigure only asks; the thread reads the file at once);
// a bad file logs every error and the previous good configuration stays in force. One holder per
// process, shared by every controller plugin through libshareq_ctld.so. The scheduler's callbacks
// only read what was last published: a stat() or a read of shareq.conf on a slow or hung file
// system (/etc/slurm on NFS) never happens under slurmctld's locks, nor under a mutex they take.
//
// The previous good configuration outlives the process: each good file's text is saved as
// StateSaveLocation/shareq_conf_last_good, and a process whose first read finds the file bad
// (slurmctld restarted, or re-executed by `scontrol reconfigure` from Slurm 23.11) starts from
// that copy instead of refusing every job with --share and deciding with no quotas.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "config.hpp"
#include "ctld_api.hpp"
#include "lock_order.hpp"
#include "policy/policy.hpp"
#include "submit_shim_internal.hpp"

namespace shareq::ctld {

// One good shareq.conf, parsed and compiled. Immutable once published.
struct LoadedConfig {
  shareq_conf_t conf;     // the parsed file (conf.config), also job_submit's C handle
  policy::Policy policy;  // compiled from conf.config
  uint64_t version = 0;   // 1 for the first good load, +1 for each later one

  [[nodiscard]] const Config& config() const { return conf.config; }
};

class SHAREQ_CTLD_API ConfigHolder {
 public:
  using Logger = std::function<void(const std::string&)>;  // one line, no prefix
  using Clock = std::function<int64_t()>;                  // monotonic seconds

  // Where the last good file's text is kept, and how it is written there (in slurmctld: queued
  // for the state writer, so no lock is held across the write). An empty path keeps no copy.
  struct LastGoodCopy {
    std::string path;
    std::function<void(const std::string& path, std::string text)> save;
  };

  // `log_error` receives every problem with the file (each ConfigError on its own line),
  // `log_info` each good load. `clock` paces the change checks (default: CLOCK_MONOTONIC).
  ConfigHolder(std::string path, Logger log_error, Logger log_info, Clock clock = {},
               LastGoodCopy last_good = {});

  // The configuration to use now, as last published: never looks at the file, except at the
  // first call of the process, which reads it. nullptr when there has never been a good
  // configuration. Thread-safe; cheap enough for callers that hold slurmctld's locks.
  std::shared_ptr<const LoadedConfig> current();

  // Looks at the file (one stat()) at most once per clock second and re-reads it when its
  // mtime, size or inode changed; then current(). For a thread that holds no lock.
  std::shared_ptr<const LoadedConfig> refresh();

  // Re-reads the file now if it changed since the last read.
  std::shared_ptr<const LoadedConfig> reload();

  // Asks the next refresh() to look at the file whatever the clock says (scontrol reconfigure:
  // Slurm calls it with its locks held, so it only sets a flag). Lock-free; any thread.
  void request_reload() { reload_requested_.store(true, std::memory_order_release); }

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  struct Signature {
    bool exists = false;
    timespec mtime{};
    off_t size = 0;
    ino_t inode = 0;
    bool operator==(const Signature& o) const {
      return exists == o.exists && mtime.tv_sec == o.mtime.tv_sec &&
             mtime.tv_nsec == o.mtime.tv_nsec && size == o.size && inode == o.inode;
    }
  };
  [[nodiscard]] Signature stat_file() const;
  // The *_checking functions run with check_mutex_ held: one thread at a time reads the file.
  std::shared_ptr<const LoadedConfig> check(bool force);
  void read_checking(const Signature& signature);
  void publish_checking(Config config, const std::string& from);
  bool start_from_last_good_checking();
  [[nodiscard]] std::shared_ptr<const LoadedConfig> published();

  RankedMutex check_mutex_{LockRank::ConfigCheck};  // held across the file's I/O
  RankedMutex mutex_{LockRank::Config};             // held only to read or replace good_
  const std::string path_;
  const Logger log_error_;
  const Logger log_info_;
  const Clock clock_;
  const LastGoodCopy last_good_;
  // Under check_mutex_:
  std::string saved_text_;  // the text last saved as the last good copy
  int64_t last_check_ = 0;
  Signature seen_;                             // the version last read (good or bad)
  std::atomic<bool> checked_{false};           // written under check_mutex_; read by current()
  std::atomic<bool> reload_requested_{false};  // request_reload(); taken by refresh()
  // Under mutex_ (written with check_mutex_ held too, so the checking thread may read it alone):
  std::shared_ptr<const LoadedConfig> good_;
};

}  // namespace shareq::ctld
