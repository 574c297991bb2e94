#include "slurm_conf_access.hpp"

#include "policy/held_capacity.hpp"
#include "slurmctld_headers.hpp"

namespace shareq::ctld {

std::string slurm_conf_file() {
  return slurm_conf.slurm_conf != nullptr ? slurm_conf.slurm_conf : "/etc/slurm/slurm.conf";
}

std::string state_save_location() {
  return slurm_conf.state_save_location != nullptr ? slurm_conf.state_save_location : "";
}

int64_t decay_half_life_s() { return slurm_conf.priority_decay_hl; }

int64_t priority_calc_period_s() { return slurm_conf.priority_calc_period; }

int64_t job_end_allowance_s() {
  return policy::job_end_allowance_s(slurm_conf.kill_wait, slurm_conf.msg_timeout);
}

}  // namespace shareq::ctld
