// shareq::ctld's log functions (plugins/ctld/log.hpp) for the shim tests that link the controller
// library's sources without Slurm's logging: each line is kept for the test to read.
#include "fake_ctld_log.hpp"

#include <cstdarg>
#include <cstdio>

#include "log.hpp"

std::string& fake_ctld_lines() {
  static std::string lines;
  return lines;
}

namespace shareq::ctld {
namespace {

void keep(const char* fmt, va_list args) {
  char line[2048];
  std::vsnprintf(line, sizeof line, fmt, args);
  fake_ctld_lines().append(line).append("\n");
}

}  // namespace

#define SHAREQ_FAKE_LOG(name)       \
  void name(const char* fmt, ...) { \
    va_list args;                   \
    va_start(args, fmt);            \
    keep(fmt, args);                \
    va_end(args);                   \
  }
SHAREQ_FAKE_LOG(log_error)
SHAREQ_FAKE_LOG(log_info)
SHAREQ_FAKE_LOG(log_verbose)
SHAREQ_FAKE_LOG(log_debug)
#undef SHAREQ_FAKE_LOG

}  // namespace shareq::ctld
