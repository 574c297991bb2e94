// Client-side resolution and checking of shareq's flags; the rules are the core's parsers.
#include "spank_flags.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "flags.hpp"

namespace {

// "" when valid, else "FIELD: MESSAGE".
std::string check(shareq_flag flag, std::string_view value) {
  switch (flag) {
    case SHAREQ_FLAG_SHARE:
      if (auto r = shareq::parse_share_name(value); !r) {
        return r.error().to_string();
      }
      return {};
    case SHAREQ_FLAG_PRIORITY:
      if (auto r = shareq::parse_share_priority(value); !r) {
        return r.error().to_string();
      }
      return {};
    case SHAREQ_FLAG_IMAGE:
      if (auto r = shareq::parse_image_ref(value); !r) {
        return r.error().to_string();
      }
      return {};
    case SHAREQ_FLAG_KEEP_ALIVE:
      if (auto r = shareq::parse_keep_alive(value, std::numeric_limits<int64_t>::max()); !r) {
        return r.error().to_string();
      }
      return {};
    case SHAREQ_FLAG_FALLBACK:
      if (auto r = shareq::parse_fallback_choice(value); !r) {
        return r.error().to_string();
      }
      return {};
    case SHAREQ_FLAG_COUNT:
      break;
  }
  return "shareq: unknown flag";
}

char* malloc_copy(const std::string& s) {
  char* copy = static_cast<char*>(std::malloc(s.size() + 1));
  if (copy != nullptr) {
    std::memcpy(copy, s.c_str(), s.size() + 1);
  }
  return copy;
}

void report(const shareq_spank_io_t* io, const std::string& message) {
  const std::string line = "shareq: " + message;
  io->error(io->ctx, line.c_str());
}

bool valid_flag(shareq_flag flag) { return flag >= 0 && flag < SHAREQ_FLAG_COUNT; }

}  // namespace

extern "C" {

char* shareq_flag_check(enum shareq_flag flag, const char* value) {
  try {
    if (!valid_flag(flag)) {
      return malloc_copy("unknown flag");
    }
    const std::string problem = check(flag, value != nullptr ? value : "");
    return problem.empty() ? nullptr : malloc_copy(problem);
  } catch (...) {
    return malloc_copy("internal error while checking the value");
  }
}

int shareq_cli_set(shareq_cli_flags_t* cli, enum shareq_flag flag, const char* value,
                   const shareq_spank_io_t* io) {
  try {
    if (!valid_flag(flag)) {
      return -1;
    }
    const std::string problem = check(flag, value != nullptr ? value : "");
    if (!problem.empty()) {
      report(io, problem);
      return -1;
    }
    std::free(cli->value[flag]);
    cli->value[flag] = malloc_copy(value);
    return cli->value[flag] != nullptr ? 0 : -1;
  } catch (...) {
    return -1;
  }
}

void shareq_cli_clear(shareq_cli_flags_t* cli) {
  for (char*& v : cli->value) {
    std::free(v);
    v = nullptr;
  }
}

int shareq_flags_forward(const shareq_cli_flags_t* cli, const shareq_spank_io_t* io) {
  try {
    int rc = 0;
    for (int i = 0; i < SHAREQ_FLAG_COUNT; ++i) {
      const auto flag = static_cast<shareq_flag>(i);
      const shareq_flag_name& names = shareq_flag_names[i];
      const char* value = cli->value[i];
      if (value == nullptr) {
        value = io->getenv(io->ctx, names.env);
        if (value != nullptr && value[0] == '\0') {
          value = nullptr;
        }
      }
      if (value == nullptr) {
        continue;
      }
      if (io->job_setenv(io->ctx, names.env, value) != 0) {
        report(io, std::string("cannot pass ") + names.env + " to the job");
        rc = -1;
      }
      const std::string problem = check(flag, value);
      if (!problem.empty()) {
        report(io, cli->value[i] != nullptr ? problem : problem + " (from " + names.env + ")");
        rc = -1;
      }
    }
    return rc;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
