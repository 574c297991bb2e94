#include "config_path.hpp"

#include <cstdlib>

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
  std::string slurm_conf = env("SLURM_CONF");
  if (slurm_conf.empty()) {
    slurm_conf = "/etc/slurm/slurm.conf";
  }
  const size_t slash = slurm_conf.rfind('/');
  if (slash == std::string::npos) {
    return "shareq.conf";
  }
  return slurm_conf.substr(0, slash + 1) + "shareq.conf";
}

}  // namespace shareq::tool
