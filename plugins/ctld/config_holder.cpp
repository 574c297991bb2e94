#include "config_holder.hpp"

#include <ctime>
#include <string>
#include <utility>
#include <variant>

namespace shareq::ctld {
namespace {

int64_t monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec;
}

}  // namespace

ConfigHolder::ConfigHolder(std::string path, Logger log_error, Logger log_info, Clock clock,
                           LastGoodCopy last_good)
    : path_(std::move(path)),
      log_error_(std::move(log_error)),
      log_info_(std::move(log_info)),
      clock_(clock ? std::move(clock) : Clock(monotonic_seconds)),
      last_good_(std::move(last_good)) {}

ConfigHolder::Signature ConfigHolder::stat_file() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    return {};
  }
  return Signature{true, st.st_mtim, st.st_size, st.st_ino};
}

std::shared_ptr<const LoadedConfig> ConfigHolder::current() {
  if (!checked_.load(std::memory_order_acquire)) return check(false);  // the first use
  return published();
}

std::shared_ptr<const LoadedConfig> ConfigHolder::refresh() {
  return check(reload_requested_.exchange(false, std::memory_order_acq_rel));
}

std::shared_ptr<const LoadedConfig> ConfigHolder::reload() { return check(true); }

std::shared_ptr<const LoadedConfig> ConfigHolder::published() {
  const RankedLock lock(mutex_);
  return good_;
}

std::shared_ptr<const LoadedConfig> ConfigHolder::check(bool force) {
  const RankedLock checking(check_mutex_);
  const int64_t now = clock_();
  if (checked_ && !force && now == last_check_) return good_;
  last_check_ = now;
  const Signature signature = stat_file();
  if (!checked_ || !(signature == seen_)) read_checking(signature);
  checked_.store(true, std::memory_order_release);
  return good_;
}

void ConfigHolder::read_checking(const Signature& signature) {
  seen_ = signature;
  auto text = read_config_text(path_);
  ParseResult parsed = parse_config_text(text, path_);
  if (parsed.config) {
    publish_checking(std::move(*parsed.config), path_);
    auto& good_text = std::get<std::string>(text);
    if (!last_good_.path.empty() && good_text != saved_text_) {
      saved_text_ = good_text;
      last_good_.save(last_good_.path, std::move(good_text));
    }
    return;
  }
  for (const ConfigError& e : parsed.errors) {
    log_error_(e.to_string());
  }
  if (good_) {
    log_error_(path_ + ": keeping the previous good configuration");
  } else if (!start_from_last_good_checking()) {
    log_error_(path_ + ": no good configuration yet: jobs with --share are refused");
  }
}

// Compiled with no lock but check_mutex_; mutex_ only for the swap.
void ConfigHolder::publish_checking(Config config, const std::string& from) {
  auto loaded = std::make_shared<LoadedConfig>();
  loaded->policy = policy::Policy::compile(config);
  loaded->conf.config = std::move(config);
  loaded->version = good_ ? good_->version + 1 : 1;
  const uint64_t version = loaded->version;
  {
    const RankedLock lock(mutex_);
    good_ = std::move(loaded);
  }
  log_info_(from + ": loaded (version " + std::to_string(version) + ")");
}

// The first read of this process found the file bad: the copy of the last good one, when there
// is one and it is still good, is the previous good configuration.
bool ConfigHolder::start_from_last_good_checking() {
  if (last_good_.path.empty()) return false;
  auto text = read_config_text(last_good_.path);
  auto* good_text = std::get_if<std::string>(&text);
  if (good_text == nullptr) return false;  // no copy yet (most often) or unreadable
  ParseResult parsed = parse_config(*good_text, last_good_.path);
  if (!parsed.config) {
    log_error_(last_good_.path + ": the saved copy of the last good " + path_ +
               " does not parse either; not used");
    return false;
  }
  publish_checking(std::move(*parsed.config), last_good_.path);
  saved_text_ = std::move(*good_text);
  log_error_(path_ + ": keeping the previous good configuration, saved in " + last_good_.path +
             "; fix the file and run scontrol reconfigure");
  return true;
}

}  // namespace shareq::ctld
