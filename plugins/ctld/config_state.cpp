#include "config_state.hpp"

#include <ctime>
#include <utility>

#include "controller_state.hpp"
#include "log.hpp"
#include "slurm_conf_access.hpp"

namespace shareq::ctld {
namespace {

int64_t monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec;
}

}  // namespace

ConfigHolder::ConfigHolder(std::string path, Logger log_error, Clock clock)
    : path_(std::move(path)),
      log_error_(std::move(log_error)),
      clock_(clock ? std::move(clock) : Clock(monotonic_seconds)) {}

ConfigHolder::Signature ConfigHolder::stat_file() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    return {};
  }
  return Signature{true, st.st_mtim, st.st_size, st.st_ino};
}

std::shared_ptr<const LoadedConfig> ConfigHolder::current() {
  const RankedLock lock(mutex_);
  check_locked(false);
  return good_;
}

std::shared_ptr<const LoadedConfig> ConfigHolder::reload() {
  const RankedLock lock(mutex_);
  check_locked(true);
  return good_;
}

void ConfigHolder::check_locked(bool force) {
  const int64_t now = clock_();
  if (checked_ && !force && now == last_check_) {
    return;
  }
  last_check_ = now;
  const Signature signature = stat_file();
  if (!checked_ || !(signature == seen_)) {
    read_locked(signature);
  }
}

void ConfigHolder::read_locked(const Signature& signature) {
  checked_ = true;
  seen_ = signature;
  ParseResult parsed = load_config_file(path_);
  if (parsed.config) {
    auto loaded = std::make_shared<LoadedConfig>();
    loaded->policy = policy::Policy::compile(*parsed.config);
    loaded->conf.config = std::move(*parsed.config);
    loaded->version = good_ ? good_->version + 1 : 1;
    good_ = std::move(loaded);
    log_info("%s: loaded (version %llu)", path_.c_str(),
             static_cast<unsigned long long>(good_->version));
    return;
  }
  for (const ConfigError& e : parsed.errors) {
    log_error_(e.to_string());
  }
  log_error_(good_ ? path_ + ": keeping the previous good configuration"
                   : path_ + ": no good configuration yet: jobs with --share are refused");
}

std::string shareq_conf_path(const std::string& slurm_conf_path) {
  return shareq_conf_beside(slurm_conf_path);
}

namespace {

ConfigHolder& process_holder() {
  ConfigPart& part = controller_state().config;
  std::call_once(part.made, [&] {
    part.holder.emplace(shareq_conf_path(slurm_conf_file()),
                        [](const std::string& line) { log_error("%s", line.c_str()); });
  });
  return *part.holder;
}

}  // namespace

std::shared_ptr<const LoadedConfig> current_config() { return process_holder().current(); }

std::shared_ptr<const LoadedConfig> reload_config() { return process_holder().reload(); }

}  // namespace shareq::ctld
