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
SHAREQ_CTLD_API int64_t kill_wait_s();              // KillWait
SHAREQ_CTLD_API int64_t msg_timeout_s();            // MessageTimeout

}  // namespace shareq::ctld
