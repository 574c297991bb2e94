#include "config_holder.hpp"

#include <utility>

#include "config.hpp"
#include "submit_shim_internal.hpp"

namespace shareq::plugin {

ConfigHolder::ConfigHolder(std::string path, Logger log_error)
    : path_(std::move(path)), log_error_(std::move(log_error)) {}

ConfigHolder::Signature ConfigHolder::stat_file() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    return {};
  }
  return Signature{true, st.st_mtim, st.st_size, st.st_ino};
}

std::shared_ptr<const shareq_conf_t> ConfigHolder::current() {
  const std::lock_guard<std::mutex> lock(mutex_);
  const Signature now = stat_file();
  if (!checked_ || !(now == seen_)) {
    reload(now);
  }
  return good_;
}

void ConfigHolder::reload(const Signature& signature) {
  checked_ = true;
  seen_ = signature;
  ParseResult parsed = load_config_file(path_);
  if (parsed.config) {
    good_ = std::make_shared<const shareq_conf_t>(shareq_conf_t{std::move(*parsed.config)});
    return;
  }
  for (const ConfigError& e : parsed.errors) {
    log_error_(e.to_string());
  }
  log_error_(good_ ? path_ + ": keeping the previous good configuration"
                   : path_ + ": no good configuration yet: jobs with --share are refused");
}

std::string shareq_conf_path(const std::string& slurm_conf_path) {
  const size_t slash = slurm_conf_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slurm_conf_path.substr(0, slash);
  return (dir.empty() ? std::string("/") : dir) + "/shareq.conf";
}

}  // namespace shareq::plugin
