#include "controller_state.hpp"

#include "log.hpp"

namespace shareq::ctld {
namespace {

void report_to_slurm_log(const char* line) { log_error("%s", line); }

}  // namespace

ControllerState::ControllerState() : digests(*new DigestPart) {
  set_lock_order_reporter(&report_to_slurm_log);
}

ControllerState& controller_state() {
  // Destroyed when the library unloads: the writer writes what is queued and joins its thread.
  static ControllerState state;
  return state;
}

UsageStore& usage_store() { return controller_state().usage; }

}  // namespace shareq::ctld
