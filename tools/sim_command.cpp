#include "sim_command.hpp"

#include <fstream>
#include <ostream>

#include "commands.hpp"
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
    const auto set = sim::apply_scheduler_parameters(value, check);
    if (!set) {
      message = "--sched-params: " + set.error().to_string();
      return false;
    }
    o.sched_params = value;
  } else if (name == "--sched-interval") {
    const auto n = text::parse_decimal(value, 86400);
    if (n.status != text::NumberStatus::Ok || n.value == 0) {
      message = "--sched-interval: " + text::quote(value) + " is not allowed; allowed: 1..86400";
      return false;
    }
    o.sched_interval_s = static_cast<int64_t>(n.value);
  } else if (name == "--submit-delay") {
    const auto n = text::parse_decimal(value, 3600);
    if (n.status != text::NumberStatus::Ok) {
      message = "--submit-delay: " + text::quote(value) + " is not allowed; allowed: 0..3600";
      return false;
    }
    o.submit_delay_s = static_cast<int64_t>(n.value);
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
    if (name == "--json") {
      o.json = true;
      continue;
    }
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (name.rfind("--", 0) == 0 && i + 1 < args.size()) {
      value = args[++i];
    }
    if (name.rfind("--", 0) != 0) return usage_error(err, "unexpected " + text::quote(name));
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

std::optional<sim::Trace> load_trace(const SimCommandOptions& o, std::ostream& err) {
  const auto text = sim::read_text_file(o.trace);
  if (!text) {
    err << "shareq: sim: " << o.trace << ": cannot read the file\n";
    return std::nullopt;
  }
  if (o.trace_format == "sacct") {
    auto parsed = sim::parse_sacct_trace(*text, o.trace);
    return report_errors(parsed, err) ? std::move(parsed.value) : std::nullopt;
  }
  const auto map = sim::load_swf_map(*o.swf_map);
  if (!report_errors(map, err)) return std::nullopt;
  auto parsed = sim::parse_swf_trace(*text, o.trace, *map.value);
  return report_errors(parsed, err) ? std::move(parsed.value) : std::nullopt;
}

std::optional<Config> load_config(const std::string& path, std::ostream& err) {
  const ParseResult parsed = load_config_file(path);
  for (const auto& e : parsed.errors) err << "shareq: sim: " << e.to_string() << "\n";
  return parsed.config;
}

// slurm.conf's, then the command line's (SimCommandOptions).
sim::SchedulerParams scheduler_params(const SimCommandOptions& o, sim::SchedulerParams params) {
  if (o.sched_params) (void)sim::apply_scheduler_parameters(*o.sched_params, params);  // checked
  if (o.sched_interval_s) params.sched_interval_s = *o.sched_interval_s;
  if (o.submit_delay_s) params.batch_sched_delay_s = *o.submit_delay_s;
  return params;
}

bool write_jobs_csv(const char* option, const std::string& path, const sim::SimResult& run,
                    std::ostream& err) {
  std::ofstream csv(path, std::ios::binary);
  csv << sim_jobs_csv(run);
  if (!csv) err << "shareq: sim: " << option << ": cannot write " << path << "\n";
  return static_cast<bool>(csv);
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

}  // namespace

int run_sim(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto o = parse_sim_options(args, err);
  if (!o) return kExitUsage;
  const auto cluster = sim::load_slurm_conf(o->slurm_conf);
  if (!report_errors(cluster, err)) return kExitFailed;
  const auto config = load_config(o->config, err);
  if (!config) return kExitFailed;
  std::optional<Config> other;
  if (o->compare && !(other = load_config(*o->compare, err))) return kExitFailed;
  const auto trace = load_trace(*o, err);
  if (!trace) return kExitFailed;

  sim::SimOptions options;
  options.scheduler = scheduler_params(*o, cluster.value->scheduler);
  options.tuning.priority_calc_period_s =
      policy::recalc_period_s(cluster.value->priority_calc_period_s);
  options.tuning.decay_half_life_s = cluster.value->decay_half_life_s;
  options.requeue_hold_s = cluster.value->requeue_hold_s;
  SimReportInput report{o->trace, &*trace, {}};
  const auto& nodes = *cluster.value;
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
  if (o->jobs_csv && !write_jobs_csv("--jobs-csv", *o->jobs_csv, report.runs.front(), err)) {
    return kExitFailed;
  }
  if (o->baseline_jobs_csv &&
      !write_jobs_csv("--baseline-jobs-csv", *o->baseline_jobs_csv, report.runs.back(), err)) {
    return kExitFailed;
  }
  out << (o->json ? sim_json(report) : sim_tables(report));
  return kExitOk;
}

}  // namespace shareq::tool
