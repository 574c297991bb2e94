#include "config_path.hpp"

#include <cstdlib>

#include "config.hpp"

namespace shareq::tool {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

}  // namespace

std::string default_config_path() {
  if (std::string path = env("SHAREQ_CONF"); !path.empty()) {
    return path;
  }
  const std::string slurm_conf = env("SLURM_CONF");
  return shareq_conf_beside(slurm_conf.empty() ? "/etc/slurm/slurm.conf" : slurm_conf);
}

}  // namespace shareq::tool
