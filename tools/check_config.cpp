// shareq check-config [--accounts] [FILE]
#include <ostream>
#include <string>
#include <vector>

#include "account_tree.hpp"
#include "commands.hpp"
#include "config.hpp"
#include "config_path.hpp"
#include "slurm_client.hpp"

namespace shareq::tool {

namespace {

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
  std::vector<std::string> rest(args.begin(), args.end());
  const bool accounts = !rest.empty() && rest[0] == "--accounts";
  if (accounts) rest.erase(rest.begin());
  if (rest.size() > 1 || (!rest.empty() && rest[0].starts_with('-'))) {
    err << "usage: shareq check-config [--accounts] [FILE]\n";
    return kExitUsage;
  }
  const std::string path = rest.empty() ? default_config_path() : rest[0];
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
  for (const std::string& warning : config_warnings(*parsed.config)) {
    out << "# warning: " << warning << "\n";
  }
  return accounts ? note_account_tree(*parsed.config, out, err) : kExitOk;
}

}  // namespace shareq::tool
