// shareq check-config [FILE]
#include <ostream>
#include <string>

#include "commands.hpp"
#include "config_path.hpp"
#include "config.hpp"

namespace shareq::tool {

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
