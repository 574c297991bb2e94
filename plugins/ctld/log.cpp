#include "log.hpp"

#include <cstdarg>
#include <cstdio>

extern "C" {
#include "src/common/slurm_xlator.h"  // first: it renames what the others declare
#include "slurm_compat.h"
#include "src/common/log.h"
}

namespace shareq::ctld {
namespace {

// One formatted line: "shareq: " + message (Slurm's log adds the daemon's own prefix).
template <typename Sink>
void emit(Sink sink, const char* fmt, va_list args) {
  char line[2048];
  std::vsnprintf(line, sizeof line, fmt, args);
  sink("shareq: %s", line);
}

}  // namespace

#define SHAREQ_LOG_FN(name, slurm_fn)                                      \
  void name(const char* fmt, ...) {                                        \
    va_list args;                                                          \
    va_start(args, fmt);                                                   \
    emit([](const char* f, const char* s) { slurm_fn(f, s); }, fmt, args); \
    va_end(args);                                                          \
  }

SHAREQ_LOG_FN(log_error, error)
SHAREQ_LOG_FN(log_info, info)
SHAREQ_LOG_FN(log_verbose, verbose)
SHAREQ_LOG_FN(log_debug, debug)

#undef SHAREQ_LOG_FN

}  // namespace shareq::ctld
