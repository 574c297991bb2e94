// The path of slurm.conf in the process that loaded the plugin (libslurmfull's slurm_conf).
// Kept apart: the only file of the SPANK plugin that includes a Slurm internal header.
#include "slurm_conf_path.hpp"

#include <cstdlib>

extern "C" {
#include "slurm_compat.h"
#include "src/common/read_config.h"
}

// Weak: a process without libslurmfull (a libslurm client) loads the plugin without it.
#pragma weak slurm_conf

namespace shareq::spank_plugin {

std::string slurm_conf_path() {
  if (&slurm_conf != nullptr && slurm_conf.slurm_conf != nullptr &&
      slurm_conf.slurm_conf[0] != '\0') {
    return slurm_conf.slurm_conf;
  }
  if (const char* env = std::getenv("SLURM_CONF"); env != nullptr && env[0] != '\0') return env;
  return "/etc/slurm/slurm.conf";
}

}  // namespace shareq::spank_plugin
