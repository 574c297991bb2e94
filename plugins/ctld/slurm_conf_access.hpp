// What shareq reads of slurm.conf (libslurmfull's slurm_conf, present in every process).
#pragma once

#include <cstdint>
#include <string>

#include "ctld_api.hpp"

namespace shareq::ctld {

SHAREQ_CTLD_API std::string slurm_conf_file();      // path of slurm.conf
SHAREQ_CTLD_API std::string state_save_location();  // StateSaveLocation ("" when unset)
SHAREQ_CTLD_API int64_t decay_half_life_s();        // PriorityDecayHalfLife (0: no decay)
SHAREQ_CTLD_API int64_t priority_calc_period_s();   // PriorityCalcPeriod in seconds
// How long an ended job's processes may take to be gone without anything being wrong:
// KillWait + 2 x MessageTimeout + 10 s (a reclaim's victims, a completing node).
SHAREQ_CTLD_API int64_t job_end_allowance_s();

// StateSaveLocation/NAME, one of shareq's own state files ("" when StateSaveLocation is unset).
inline std::string state_file_path(const char* name) {
  const std::string dir = state_save_location();
  return dir.empty() ? std::string() : dir + "/" + name;
}

}  // namespace shareq::ctld
