// shareq check-config [FILE]
#include <cstdlib>
#include <ostream>
#include <string>

#include "commands.hpp"
#include "config.hpp"

namespace shareq::tool {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

// $SHAREQ_CONF, else shareq.conf in the directory of $SLURM_CONF (default
// /etc/slurm/slurm.conf).
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

}  // namespace

int run_check_config(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (args.size() > 1 || (!args.empty() && args[0].starts_with('-'))) {
    err << "usage: shareq check-config [FILE]\n";
    return kExitUsage;
  }
  const std::string path = args.empty() ? default_config_path() : args[0];
  const ParseResult parsed = load_config_file(path);
  if (!parsed.config) {
    for (const ConfigError& error : parsed.errors) {
      err << error.to_string() << "\n";
    }
    err << "shareq: check-config: " << parsed.errors.size()
        << (parsed.errors.size() == 1 ? " error" : " errors") << " in " << path << "\n";
    return kExitFailed;
  }
  out << format_config(*parsed.config);
  return kExitOk;
}

}  // namespace shareq::tool
