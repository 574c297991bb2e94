#include "controller_state.hpp"

#include "log.hpp"

namespace shareq::ctld {
namespace {

void report_to_slurm_log(const char* line) { log_error("%s", line); }

void report_state_write(bool error, const std::string& message) {
  if (error) {
    log_error("%s", message.c_str());
  } else {
    log_info("%s", message.c_str());
  }
}

}  // namespace

ControllerState::ControllerState() : writer(&report_state_write), digests(*new DigestPart) {
  set_lock_order_reporter(&report_to_slurm_log);
}

ControllerState& controller_state() {
  // Destroyed when the library unloads: the writer writes what is queued and joins its thread.
  static ControllerState state;
  return state;
}

ConfigPart& config_part() {
  static ConfigPart& part = *new ConfigPart;
  return part;
}

UsageStore& usage_store() { return controller_state().usage; }

void save_state_later(const std::string& path, std::string text, Durability durability,
                      const char* what) {
  controller_state().writer.queue(path, std::move(text), durability, what);
}

void flush_state_saves() { controller_state().writer.flush(); }

}  // namespace shareq::ctld
