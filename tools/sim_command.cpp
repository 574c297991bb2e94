#include "sim_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <new>
#include <ostream>
#include <system_error>

#include "commands.hpp"
#include "config.hpp"
#include "policy/policy.hpp"
#include "policy/usage.hpp"
#include "sim/sacct_trace.hpp"
#include "sim/sched_params.hpp"
#include "sim/simulate.hpp"
#include "sim/swf_trace.hpp"
#include "sim_report.hpp"
#include "text.hpp"

namespace shareq::tool {
namespace {

std::optional<SimCommandOptions> usage_error(std::ostream& err, const std::string& message) {
  err << "shareq: sim: " << message << "\nusage: shareq sim " << kSimSynopsis << "\n";
  return std::nullopt;
}

// The options that take a value (set_option), and those that take none.
constexpr std::string_view kValueOptions[] = {
    "--slurm-conf",        "--config",         "--trace",
    "--swf-map",           "--compare",        "--jobs-csv",
    "--baseline-jobs-csv", "--trace-format",   "--baseline",
    "--sched-params",      "--sched-interval", "--submit-delay"};

bool takes_value(std::string_view name) {
  return std::ranges::any_of(kValueOptions,
                             [&](std::string_view option) { return name == option; });
}

bool is_flag(std::string_view name) { return name == "--json" || name == "--help" || name == "-h"; }

// Sets one option from --NAME VALUE; false with a message when the value is bad.
bool set_option(SimCommandOptions& o, const std::string& name, const std::string& value,
                std::string& message) {
  if (name == "--slurm-conf")
    o.slurm_conf = value;
  else if (name == "--config")
    o.config = value;
  else if (name == "--trace")
    o.trace = value;
  else if (name == "--swf-map")
    o.swf_map = value;
  else if (name == "--compare")
    o.compare = value;
  else if (name == "--jobs-csv")
    o.jobs_csv = value;
  else if (name == "--baseline-jobs-csv")
    o.baseline_jobs_csv = value;
  else if (name == "--trace-format") {
    o.trace_format = value;
    if (value != "sacct" && value != "swf") {
      message = "--trace-format: " + text::quote(value) + " is not a format; allowed: sacct, swf";
      return false;
    }
  } else if (name == "--baseline") {
    o.baseline = value;
    if (value != "fifo" && value != "stock") {
      message = "--baseline: " + text::quote(value) + " is not a baseline; allowed: fifo, stock";
      return false;
    }
  } else if (name == "--sched-params") {
    sim::SchedulerParams check;
    auto set = sim::check_modelled_parameters(value);
    if (set) set = sim::apply_scheduler_parameters(value, check);
    if (!set) {
      message = "--sched-params: " + set.error().to_string();
      return false;
    }
    o.sched_params = value;
  } else if (name == "--sched-interval") {
    const auto n = sim::parse_scheduler_parameter("sched_interval", value);  // Slurm's range
    if (!n) {
      message = "--sched-interval: " + n.error().message;
      return false;
    }
    o.sched_interval_s = n.value();
  } else if (name == "--submit-delay") {
    const auto n = sim::parse_scheduler_parameter("batch_sched_delay", value);  // Slurm's range
    if (!n) {
      message = "--submit-delay: " + n.error().message;
      return false;
    }
    o.submit_delay_s = n.value();
  } else {
    message = "unknown option " + text::quote(name);
    return false;
  }
  return true;
}

}  // namespace

std::optional<SimCommandOptions> parse_sim_options(std::span<const std::string> args,
                                                   std::ostream& err) {
  SimCommandOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i], value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (is_flag(name)) {
      if (inline_value) return usage_error(err, name + " takes no value");
      if (name != "--json") {
        o.help = true;  // the rest is not read
        return o;
      }
      o.json = true;
      continue;
    }
    if (!takes_value(name)) {
      return usage_error(
          err, (name.rfind("--", 0) == 0 ? "unknown option " : "unexpected ") + text::quote(name));
    }
    if (!inline_value && i + 1 < args.size()) value = args[++i];
    if (value.empty()) return usage_error(err, name + " needs a value");
    std::string message;
    if (!set_option(o, name, value, message)) return usage_error(err, message);
  }
  if (o.slurm_conf.empty() || o.config.empty() || o.trace.empty()) {
    return usage_error(err, "--slurm-conf, --config and --trace are required");
  }
  if (o.baseline_jobs_csv && !o.baseline) {
    return usage_error(err, "--baseline-jobs-csv needs --baseline fifo|stock");
  }
  if (o.trace_format == "swf" && !o.swf_map) {
    return usage_error(err,
                       "--trace-format swf needs --swf-map FILE (which share each job runs under)");
  }
  return o;
}

namespace {

template <typename T>
bool report_errors(const sim::Parsed<T>& parsed, std::ostream& err) {
  for (const auto& e : parsed.errors) err << "shareq: sim: " << e.to_string() << "\n";
  if (parsed.errors.size() >= sim::kMaxInputErrors) err << "shareq: sim: (more errors not shown)\n";
  return parsed.value.has_value();
}

// shareq.conf's limit, as check-config and slurmctld read it.
constexpr sim::InputKind kShareqConfInput{"shareq.conf", kMaxConfigFileBytes};

// The text of the input that `option` names, or nullopt with the error said on `err`, the option
// first: "--trace: PATH: is a FIFO, not a regular file; ...".
std::optional<std::string> read_input(std::string_view option, const std::string& path,
                                      const sim::InputKind& kind, std::ostream& err) {
  auto text = sim::read_input_file(path, kind);
  if (auto* error = std::get_if<sim::InputError>(&text)) {
    err << "shareq: sim: " << option << ": " << error->to_string() << "\n";
    return std::nullopt;
  }
  return std::move(std::get<std::string>(text));
}

std::optional<sim::Trace> load_trace(const SimCommandOptions& o, std::ostream& err) {
  std::optional<sim::Parsed<sim::SwfMap>> map;
  if (o.trace_format == "swf") {
    const auto map_text = read_input("--swf-map", *o.swf_map, sim::kSwfMapInput, err);
    if (!map_text) return std::nullopt;
    map = sim::parse_swf_map(*map_text, *o.swf_map);
    if (!report_errors(*map, err)) return std::nullopt;
  }
  const auto text = read_input("--trace", o.trace, sim::kTraceInput, err);
  if (!text) return std::nullopt;
  auto parsed = map ? sim::parse_swf_trace(*text, o.trace, *map->value)
                    : sim::parse_sacct_trace(*text, o.trace);
  return report_errors(parsed, err) ? std::move(parsed.value) : std::nullopt;
}

std::optional<Config> load_config(std::string_view option, const std::string& path,
                                  std::ostream& err) {
  const auto text = read_input(option, path, kShareqConfInput, err);
  if (!text) return std::nullopt;
  const ParseResult parsed = parse_config(*text, path);
  for (const auto& e : parsed.errors) err << "shareq: sim: " << e.to_string() << "\n";
  return parsed.config;
}

// slurm.conf with the files it includes (read from disk), or nullopt with the errors said.
std::optional<sim::SlurmCluster> load_slurm_conf(const std::string& path, std::ostream& err) {
  const auto text = read_input("--slurm-conf", path, sim::kSlurmConfInput, err);
  if (!text) return std::nullopt;
  auto parsed = sim::parse_slurm_conf(*text, path, {}, sim::read_include_from_disk);
  return report_errors(parsed, err) ? std::move(parsed.value) : std::nullopt;
}

// slurm.conf's, then the command line's (SimCommandOptions).
sim::SchedulerParams scheduler_params(const SimCommandOptions& o, sim::SchedulerParams params) {
  if (o.sched_params) (void)sim::apply_scheduler_parameters(*o.sched_params, params);  // checked
  if (o.sched_interval_s) params.sched_interval_s = *o.sched_interval_s;
  if (o.submit_delay_s) params.batch_sched_delay_s = *o.submit_delay_s;
  return params;
}

struct CloseFile {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// A --jobs-csv or --baseline-jobs-csv file, opened before the simulation runs so that a path
// that cannot be written fails at once.
struct CsvOutput {
  const char* option = nullptr;
  std::string path;
  std::unique_ptr<std::FILE, CloseFile> file;
};

bool cannot_write(const CsvOutput& csv, int error_number, std::ostream& err) {
  err << "shareq: sim: " << csv.option << ": cannot write " << csv.path << ": "
      << std::generic_category().message(error_number) << "\n";
  return false;
}

// Opens the file when the option is given; false with the OS's reason when it cannot be.
bool open_csv(const char* option, const std::optional<std::string>& path, CsvOutput& csv,
              std::ostream& err) {
  if (!path) return true;
  csv = {option, *path, std::unique_ptr<std::FILE, CloseFile>(std::fopen(path->c_str(), "wb"))};
  return csv.file ? true : cannot_write(csv, errno, err);
}

bool write_jobs_csv(CsvOutput& csv, const sim::SimResult& run, std::ostream& err) {
  if (!csv.file) return true;
  const std::string text = sim_jobs_csv(run);
  const bool written = std::fwrite(text.data(), 1, text.size(), csv.file.get()) == text.size();
  int failure = written ? 0 : errno;
  if (std::fclose(csv.file.release()) != 0 && failure == 0) failure = errno;
  return failure == 0 ? true : cannot_write(csv, failure, err);
}

sim::SimResult run_one(const sim::Trace& trace, const sim::SlurmCluster& cluster,
                       const Config& config, sim::SchedulerKind kind,
                       const sim::SimOptions& options, const std::string& label) {
  const auto policy = policy::Policy::compile(config);
  const auto workload = sim::prepare_workload(trace, cluster, policy);
  sim::SimResult result = sim::simulate(trace, workload, cluster, policy, kind, options);
  result.label = label;
  return result;
}

int run_checked(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto o = parse_sim_options(args, err);
  if (!o) return kExitUsage;
  if (o->help) {
    out << "usage: shareq sim " << kSimSynopsis << "\n";
    return kExitOk;
  }
  const auto cluster = load_slurm_conf(o->slurm_conf, err);
  if (!cluster) return kExitFailed;
  const auto config = load_config("--config", o->config, err);
  if (!config) return kExitFailed;
  std::optional<Config> other;
  if (o->compare && !(other = load_config("--compare", *o->compare, err))) return kExitFailed;
  const auto trace = load_trace(*o, err);
  if (!trace) return kExitFailed;
  CsvOutput jobs_csv, baseline_csv;
  if (!open_csv("--jobs-csv", o->jobs_csv, jobs_csv, err) ||
      !open_csv("--baseline-jobs-csv", o->baseline_jobs_csv, baseline_csv, err)) {
    return kExitFailed;
  }

  sim::SimOptions options;
  options.scheduler = scheduler_params(*o, cluster->scheduler);
  options.tuning.priority_calc_period_s = policy::recalc_period_s(cluster->priority_calc_period_s);
  options.tuning.decay_half_life_s = cluster->decay_half_life_s;
  options.stock = {cluster->priority_calc_period_s, cluster->decay_half_life_s,
                   cluster->weight_fairshare, cluster->weight_age, cluster->max_age_s};
  options.requeue_hold_s = cluster->requeue_hold_s;
  SimReportInput report{o->trace, &*trace, {}};
  const auto& nodes = *cluster;
  report.runs.push_back(run_one(*trace, nodes, *config, sim::SchedulerKind::Shareq, options,
                                "shareq (" + o->config + ")"));
  if (other) {
    report.runs.push_back(run_one(*trace, nodes, *other, sim::SchedulerKind::Shareq, options,
                                  "shareq (" + *o->compare + ")"));
  }
  if (o->baseline == "fifo") {
    report.runs.push_back(
        run_one(*trace, nodes, *config, sim::SchedulerKind::Fifo, options, "fifo+backfill"));
  } else if (o->baseline == "stock") {
    report.runs.push_back(
        run_one(*trace, nodes, *config, sim::SchedulerKind::Stock, options, "stock"));
  }
  if (!write_jobs_csv(jobs_csv, report.runs.front(), err) ||
      !write_jobs_csv(baseline_csv, report.runs.back(), err)) {
    return kExitFailed;
  }
  out << (o->json ? sim_json(report) : sim_tables(report));
  return kExitOk;
}

}  // namespace

int run_sim(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  try {
    return run_checked(args, out, err);
  } catch (const std::bad_alloc&) {  // a last resort: every input is read within a size limit
    err << "shareq: sim: out of memory: the trace and slurm.conf need more memory than this "
           "machine has; try a shorter trace (each input's size limit is in shareq(1))\n";
    return kExitFailed;
  }
}

}  // namespace shareq::tool
