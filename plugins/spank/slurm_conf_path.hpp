#pragma once

#include <string>

namespace shareq::spank_plugin {

// slurm.conf of this Slurm process (slurmstepd, slurmd, ...); shareq.conf lies beside it.
std::string slurm_conf_path();

}  // namespace shareq::spank_plugin
