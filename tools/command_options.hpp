// The options the cluster subcommands share, and loading shareq.conf for them.
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace shareq::tool {

struct CommandOptions {
  std::optional<std::string> config;  // --config FILE
  std::optional<std::string> family;  // --family F
  std::optional<std::string> share;   // --share S
  std::optional<std::string> limit;   // --limit N, as given (the command checks it)
  bool json = false;                  // --json
  bool drain = false;                 // --drain
  std::vector<std::string> operands;  // everything that is not an option
};

// Parses `args` for a command that accepts the options in `allowed` ("--config", "--family",
// "--share", "--limit", "--json", "--drain"; both "--opt VALUE" and "--opt=VALUE" for those that
// take a value). On a bad command line, prints a message and `synopsis` on `err` and returns
// nullopt.
std::optional<CommandOptions> parse_command_options(std::span<const std::string> args,
                                                    std::span<const std::string_view> allowed,
                                                    std::string_view synopsis, std::ostream& err);

// shareq.conf from --config, else where the plugins find it; prints every error on `err`
// ("shareq: COMMAND: ...") and returns nullopt when it does not load.
std::optional<Config> load_command_config(const CommandOptions& options, std::string_view command,
                                          std::ostream& err);

}  // namespace shareq::tool
