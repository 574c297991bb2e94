// shareq::ctld's log functions (plugins/ctld/log.hpp) for a shim test that links the controller
// library's sources without Slurm's logging: each line is kept in fake_ctld_lines(), which the
// test reads and clears. Include in one translation unit of the test.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

#include "log.hpp"

// Every line logged so far, each ending in a newline.
inline std::string& fake_ctld_lines() {
  static std::string lines;
  return lines;
}

namespace shareq::ctld {

#define SHAREQ_FAKE_LOG(name)                     \
  void name(const char* fmt, ...) {               \
    char line[2048];                              \
    va_list args;                                 \
    va_start(args, fmt);                          \
    std::vsnprintf(line, sizeof line, fmt, args); \
    va_end(args);                                 \
    fake_ctld_lines().append(line).append("\n");  \
  }
SHAREQ_FAKE_LOG(log_error)
SHAREQ_FAKE_LOG(log_info)
SHAREQ_FAKE_LOG(log_verbose)
SHAREQ_FAKE_LOG(log_debug)
#undef SHAREQ_FAKE_LOG

}  // namespace shareq::ctld
