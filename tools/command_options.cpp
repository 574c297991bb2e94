#include "command_options.hpp"

#include <algorithm>
#include <ostream>

#include "config_path.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

bool takes_value(std::string_view option) { return option != "--json" && option != "--drain"; }

}  // namespace

std::optional<CommandOptions> parse_command_options(std::span<const std::string> args,
                                                    std::span<const std::string_view> allowed,
                                                    std::string_view synopsis, std::ostream& err) {
  CommandOptions options;
  const auto fail = [&](const std::string& message) {
    err << "shareq: " << message << "\nusage: " << synopsis << "\n";
    return std::nullopt;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("-")) {
      options.operands.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return fail("unknown option " + text::quote(arg));
    }
    std::optional<std::string> value;
    if (eq != std::string::npos) {
      if (!takes_value(name)) return fail(name + " takes no value");
      value = arg.substr(eq + 1);
    } else if (takes_value(name)) {
      if (i + 1 == args.size()) return fail(name + " needs a value");
      value = args[++i];
    }
    if (takes_value(name) && value->empty()) return fail(name + " needs a value");
    if (name == "--config") options.config = value;
    if (name == "--family") options.family = value;
    if (name == "--share") options.share = value;
    if (name == "--limit") options.limit = value;
    if (name == "--json") options.json = true;
    if (name == "--drain") options.drain = true;
  }
  return options;
}

std::optional<Config> load_command_config(const CommandOptions& options, std::string_view command,
                                          std::ostream& err) {
  const std::string path = options.config.value_or(default_config_path());
  ParseResult parsed = load_config_file(path);
  if (parsed.config) return std::move(parsed.config);
  for (const ConfigError& error : parsed.errors) {
    err << "shareq: " << command << ": " << error.to_string() << "\n";
  }
  err << "shareq: " << command << ": cannot use " << path << " (" << parsed.errors.size()
      << (parsed.errors.size() == 1 ? " error" : " errors") << ")\n";
  return std::nullopt;
}

}  // namespace shareq::tool
