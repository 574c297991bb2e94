// shareq sim: the what-if simulator on the command line (see docs/man/shareq.1).
#pragma once

#include <iosfwd>
#include <optional>
#include <span>
#include <string>

namespace shareq::tool {

inline constexpr const char* kSimSynopsis =
    "--slurm-conf FILE --config FILE --trace FILE [--trace-format sacct|swf] [--swf-map FILE] "
    "[--compare OTHER_SHAREQ_CONF] [--baseline fifo|stock] [--sched-params LIST] [--sched-interval "
    "S] "
    "[--submit-delay S] "
    "[--json] "
    "[--jobs-csv FILE] [--baseline-jobs-csv FILE]";

struct SimCommandOptions {
  std::string slurm_conf, config, trace;
  std::string trace_format = "sacct";
  std::optional<std::string> swf_map, compare, jobs_csv, baseline_jobs_csv;
  std::optional<std::string> baseline;  // "fifo" or "stock"
  bool json = false;
  bool help = false;  // --help (or -h): print the usage, exit 0; nothing else is read
  // Over slurm.conf's SchedulerType/SchedulerParameters (and Slurm's defaults): --sched-params
  // (SchedulerParameters' syntax), then --sched-interval and --submit-delay (batch_sched_delay).
  std::optional<std::string> sched_params;
  std::optional<int64_t> sched_interval_s, submit_delay_s;
};

// nullopt (and a message with the synopsis on `err`) on a bad command line: an unknown option, a
// value missing or not allowed, a value given to --json, a required option missing.
std::optional<SimCommandOptions> parse_sim_options(std::span<const std::string> args,
                                                   std::ostream& err);

int run_sim(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace shareq::tool
