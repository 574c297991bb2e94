// shareq.conf as job_submit/shareq sees it: loaded at init, reloaded when the file changes, the
// last good configuration kept when a new version is bad.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "submit_shim.h"

namespace shareq::plugin {

class ConfigHolder {
 public:
  using Logger = std::function<void(const std::string&)>;  // one error line, no prefix

  // `log_error` receives every problem with the file (each ConfigError on its own line).
  ConfigHolder(std::string path, Logger log_error);

  // The configuration to use now, after at most one stat() of the file: re-read when its
  // mtime, size or inode changed. nullptr when there has never been a good configuration.
  // Thread-safe.
  std::shared_ptr<const shareq_conf_t> current();

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
  void reload(const Signature& signature);

  std::mutex mutex_;
  const std::string path_;
  const Logger log_error_;
  bool checked_ = false;
  Signature seen_;  // the version last read (good or bad)
  std::shared_ptr<const shareq_conf_t> good_;
};

// shareq.conf beside slurm.conf: dirname(slurm_conf_path) + "/shareq.conf".
std::string shareq_conf_path(const std::string& slurm_conf_path);

}  // namespace shareq::plugin
