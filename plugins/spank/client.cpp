#include "client.hpp"

#include <cstdlib>

#include "spank_flags.h"

namespace shareq::spank_plugin {
namespace {

shareq_cli_flags_t cli{};
bool registered = false;

const char* io_getenv(void* /*ctx*/, const char* name) { return std::getenv(name); }

int io_job_setenv(void* ctx, const char* name, const char* value) {
  return spank_job_control_setenv(static_cast<spank_t>(ctx), name, value, 1) == ESPANK_SUCCESS ? 0
                                                                                               : -1;
}

void io_error(void* /*ctx*/, const char* message) { slurm_error("%s", message); }

shareq_spank_io_t io_for(spank_t sp) {
  return shareq_spank_io_t{static_cast<void*>(sp), io_getenv, io_job_setenv, io_error};
}

// Called by Slurm for each occurrence of an option (the last one wins). In the remote context
// Slurm replays the client's options; they were checked there, so nothing is done.
int on_option(int val, const char* optarg, int remote) {
  if (remote != 0) {
    return 0;
  }
  const shareq_spank_io_t io = io_for(nullptr);
  return shareq_cli_set(&cli, static_cast<shareq_flag>(val), optarg, &io);
}

#define SHAREQ_OPTION(flag, arginfo, usage)                                        \
  spank_option {                                                                   \
    const_cast<char*>(shareq_flag_names[flag].option), const_cast<char*>(arginfo), \
        const_cast<char*>("[shareq] " usage), 1, flag, on_option                   \
  }

spank_option options[] = {
    SHAREQ_OPTION(SHAREQ_FLAG_SHARE, "NAME",
                  "Quota share to run in (a Slurm account; default: the job's account). "
                  "Env: SHAREQ_SHARE."),
    SHAREQ_OPTION(SHAREQ_FLAG_PRIORITY, "N",
                  "Priority 0-99 inside the share, higher first (default from shareq.conf). "
                  "Env: SHAREQ_SHARE_PRIORITY."),
    SHAREQ_OPTION(SHAREQ_FLAG_IMAGE, "NAME[@sha256:HEX]",
                  "Image from the image store, cached on the nodes. Env: SHAREQ_IMAGE."),
    SHAREQ_OPTION(SHAREQ_FLAG_KEEP_ALIVE, "SECONDS",
                  "Keep the job's nodes warm this long for matching jobs (0..MaxKeepAlive). "
                  "Env: SHAREQ_KEEP_ALIVE."),
    SHAREQ_OPTION(SHAREQ_FLAG_FALLBACK, "yes|no",
                  "May start in the family's Fallback= families when its own cannot start it "
                  "(default yes). Env: SHAREQ_FALLBACK."),
};

#undef SHAREQ_OPTION

}  // namespace

int register_options(spank_t sp) {
  if (registered) {
    return ESPANK_SUCCESS;
  }
  for (spank_option& option : options) {
    const spank_err_t rc = spank_option_register(sp, &option);
    if (rc != ESPANK_SUCCESS) {
      slurm_error("shareq: cannot register --%s: %s", option.name, spank_strerror(rc));
      return rc;
    }
  }
  registered = true;
  return ESPANK_SUCCESS;
}

int forward_flags(spank_t sp) {
  const shareq_spank_io_t io = io_for(sp);
  return shareq_flags_forward(&cli, &io);
}

void clear_flags() { shareq_cli_clear(&cli); }

}  // namespace shareq::spank_plugin
