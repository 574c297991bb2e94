// Where the tool finds shareq.conf: where the plugins find it.
#pragma once

#include <string>

namespace shareq::tool {

// $SHAREQ_CONF, else shareq.conf in the directory of $SLURM_CONF (default
// /etc/slurm/slurm.conf).
std::string default_config_path();

}  // namespace shareq::tool
