// shareq: the command-line tool. Dispatch only; see commands.cpp for the subcommands.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    args.emplace_back(argv[i]);
  }
  return shareq::tool::run_shareq(args, std::cout, std::cerr);
}
