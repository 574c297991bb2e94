// shareq check-config [--accounts] [FILE|-]
#include <unistd.h>

#include <ostream>
#include <string>
#include <vector>

#include "account_tree.hpp"
#include "commands.hpp"
#include "config.hpp"
#include "config_path.hpp"
#include "slurm_client.hpp"
#include "text.hpp"

namespace shareq::tool {

namespace {

constexpr std::string_view kUsage = "usage: shareq check-config [--accounts] [FILE|-]";

// --accounts: the notes about the shares' place in slurmdbd's account tree, as "note: ..." lines
// after the configuration. Exit 1 only when the tree cannot be read.
int note_account_tree(const Config& config, std::ostream& out, std::ostream& err) {
  const Result<std::vector<AccountParent>> tree = load_account_tree();
  if (!tree) {
    err << "shareq: check-config: --accounts: " << tree.error().to_string() << "\n";
    return kExitFailed;
  }
  for (const std::string& note : account_tree_notes(config, tree.value())) {
    out << "# note: " << note << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_check_config(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto usage_error = [&](const std::string& problem) {
    err << "shareq: check-config: " << problem << "\n" << kUsage << "\n";
    return kExitUsage;
  };
  bool accounts = false;
  bool operands_only = false;  // after "--", every word is a FILE
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    if (operands_only) {
      files.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      out << kUsage << "\n"
          << "Checks shareq.conf (FILE, or - for standard input; default: $SHAREQ_CONF, else "
             "shareq.conf beside $SLURM_CONF) and prints it in canonical form.\n"
          << "  --accounts  also note the shares' place in slurmdbd's account tree\n";
      return kExitOk;
    }
    if (arg == "--accounts") {
      accounts = true;
    } else if (arg == "--") {
      operands_only = true;
    } else if (arg.starts_with('-') && arg != "-") {
      return usage_error("unknown option " + text::quote(arg) + "; allowed: --accounts, --help");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() > 1) {
    return usage_error("one FILE at most, got " + std::to_string(files.size()));
  }
  const std::string path = files.empty() ? default_config_path() : files[0];
  // "-": standard input (a pipe is fine there), with the same size limit as a file.
  const ParseResult parsed = path == "-"
                                 ? parse_config_text(read_config_fd(::dup(STDIN_FILENO), "-"), "-")
                                 : load_config_file(path);
  if (!parsed.config) {
    for (const ConfigError& error : parsed.errors) {
      err << error.to_string() << "\n";
    }
    err << "shareq: check-config: " << parsed.errors.size()
        << (parsed.errors.size() == 1 ? " error" : " errors") << " in "
        << (path == "-" ? std::string("standard input") : path) << "\n";
    return kExitFailed;
  }
  out << format_config(*parsed.config);
  for (const std::string& warning : config_warnings(*parsed.config)) {
    out << "# warning: " << warning << "\n";
  }
  return accounts ? note_account_tree(*parsed.config, out, err) : kExitOk;
}

}  // namespace shareq::tool
