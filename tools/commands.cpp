#include "commands.hpp"

#include <array>
#include <ostream>

#include "sim_command.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::array<Command, 8> kCommands = {{
    {"check-config", "[--accounts] [FILE|-]",
     "parse shareq.conf and print it in canonical form, or print every error (exit 1); FILE "
     "defaults to $SHAREQ_CONF, else shareq.conf beside $SLURM_CONF (/etc/slurm/slurm.conf); "
     "--accounts also reads slurmdbd's account tree and notes a share below another share's "
     "account and a share that is no account",
     run_check_config},
    {"status", "[--family F] [--config FILE] [--json]",
     "per family: capacity, used, idle, borrowed; per share: quota, usage, borrowed, BorrowLimit, "
     "LendLimit, running and pending jobs and what the pending ones ask",
     run_status},
    {"queue", "[--family F] [--share S] [--limit N] [--config FILE] [--json]",
     "per family, the next pending jobs (default 100) in the order the scheduler tries them: "
     "job, user, share, tier (within quota, borrow, unlisted), priority, request, Slurm's "
     "expected start, and what each waits for or that it starts next",
     run_queue},
    {"why", "JOBID [--config FILE]",
     "why a pending job waits (share, quota or borrowing, what it waits for, its place in the "
     "queue) or, for a running job, where it runs, whether it can be reclaimed, warm start",
     run_why},
    {"pools", "[--json]",
     "the warm pools: nodes, status, owner, until when (and time left), match key", run_pools},
    {"node-check", "[--family F] [--drain] [--config FILE]",
     "this node's GPUs, NUMA nodes and cores (hwloc; HWLOC_XMLFILE names a topology file) "
     "against Hardware= of F, else of the families of its partitions (node SLURMD_NODENAME, "
     "else hostname -s); one line; exit 0 healthy, 1 not (--drain drains the node with that "
     "line), 2 usage or config error; for HealthCheckProgram",
     run_node_check},
    {"sim", kSimSynopsis,
     "what-if simulation: replay a workload trace on slurm.conf's nodes under shareq.conf (and "
     "another, or FIFO+backfill) and print utilisation, waits, preemptions, borrowing",
     run_sim},
    {"version", "", "print the version of shareq", run_version},
}};

}  // namespace

std::span<const Command> commands() { return kCommands; }

std::string usage() {
  std::string text = "usage: shareq COMMAND [ARGS]\n\ncommands:\n";
  for (const Command& command : kCommands) {
    std::string line = "  " + std::string(command.name);
    if (!command.synopsis.empty()) {
      line += " " + std::string(command.synopsis);
    }
    text += line + "\n      " + std::string(command.summary) + "\n";
  }
  text += "  help\n      print this text\n";
  return text;
}

int run_shareq(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty()) {
    for (const Command& command : kCommands) {
      if (args[0] == command.name) {
        return command.run(args.subspan(1), out, err);
      }
    }
    if (args[0] != "help" && args[0] != "--help" && args[0] != "-h") {
      err << "shareq: unknown command " << text::quote(args[0]) << "\n";
    }
  }
  err << usage();
  return kExitUsage;
}

int run_version(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (!args.empty()) {
    err << "shareq: version takes no arguments\nusage: shareq version\n";
    return kExitUsage;
  }
  out << "shareq " << SHAREQ_VERSION << "\n";
  return kExitOk;
}

}  // namespace shareq::tool
