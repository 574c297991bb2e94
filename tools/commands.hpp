// The shareq tool's subcommands: one table, one dispatcher. A new subcommand is one row in
// commands.cpp and one function in its own file.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace shareq::tool {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the command ran and found a problem
inline constexpr int kExitUsage = 2;   // bad command line

struct Command {
  std::string_view name;      // "check-config"
  std::string_view synopsis;  // "[FILE]"
  std::string_view summary;   // one line for the usage text
  int (*run)(std::span<const std::string> args, std::ostream& out, std::ostream& err);
};

std::span<const Command> commands();

// Usage text listing every subcommand.
std::string usage();

// Runs `shareq ARGS...` (args excludes the program name); returns the exit code.
int run_shareq(std::span<const std::string> args, std::ostream& out, std::ostream& err);

// Subcommands.
int run_check_config(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_status(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_queue(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_why(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_pools(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_node_check(std::span<const std::string> args, std::ostream& out, std::ostream& err);
int run_version(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace shareq::tool
