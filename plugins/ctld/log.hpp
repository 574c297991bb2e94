// Slurm's log from C++ files that must not include slurm_xlator.h (its `#define error
// slurm_error` renames Result::error()). Each line gets the "shareq: " prefix; messages are
// complete sentences, printf-style.
#pragma once

#include "ctld_api.hpp"

namespace shareq::ctld {

SHAREQ_CTLD_API void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
SHAREQ_CTLD_API void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
SHAREQ_CTLD_API void log_verbose(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
SHAREQ_CTLD_API void log_debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace shareq::ctld
