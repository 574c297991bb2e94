// The process-wide shareq.conf holder (config_holder.hpp) of slurmctld, for every controller
// plugin through libshareq_ctld.so.
#pragma once

#include <memory>
#include <string>

#include "config_holder.hpp"
#include "ctld_api.hpp"

namespace shareq::ctld {

// shareq.conf beside slurm.conf: dirname(slurm_conf_path) + "/shareq.conf".
SHAREQ_CTLD_API std::string shareq_conf_path(const std::string& slurm_conf_path);

// The process-wide holder for the shareq.conf beside this process's slurm.conf, created on the
// first call (nothing happens at library load). Errors go to Slurm's log. current_config() reads
// only what was last published (the file itself at the first call of the process).
SHAREQ_CTLD_API std::shared_ptr<const LoadedConfig> current_config();
// Looks at the file (at most once a second) and re-reads it if it changed: priority/shareq's
// thread, at each pass, holding no lock.
SHAREQ_CTLD_API std::shared_ptr<const LoadedConfig> refresh_config();
// Asks the next refresh_config() to look at the file whatever the time (priority_p_reconfig,
// i.e. scontrol reconfigure, under slurmctld's locks: no file I/O, no wait on a shareq lock).
SHAREQ_CTLD_API void request_config_reload();

}  // namespace shareq::ctld
