// shareq why JOBID|JOBID_TASK [--config FILE]
#include <array>
#include <ostream>

#include "cluster_state.hpp"
#include "command_options.hpp"
#include "commands.hpp"
#include "slurm_client.hpp"
#include "text.hpp"
#include "why_report.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kSynopsis = "shareq why JOBID[_TASK] [--config FILE]";
constexpr std::array<std::string_view, 1> kOptions = {"--config"};

}  // namespace

int run_why(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  const auto options = parse_command_options(args, kOptions, kSynopsis, err);
  if (!options) return kExitUsage;
  if (options->operands.size() != 1) {
    err << "shareq: why: expected one job id\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  const std::string& operand = options->operands.front();
  const Result<JobOperand> parsed = parse_job_operand(operand);
  if (!parsed) {
    err << "shareq: why: " << parsed.error().to_string() << "\nusage: " << kSynopsis << "\n";
    return kExitUsage;
  }
  std::optional<Config> config = load_command_config(*options, "why", err);
  if (!config) return kExitFailed;
  Result<ClusterData> data = load_cluster_data();
  if (!data) {
    err << "shareq: why: " << data.error().to_string() << "\n";
    return kExitFailed;
  }
  const ClusterState state(*config, std::move(data).value());
  for (const std::string& problem : state.problems()) {
    err << "shareq: why: warning: " << problem << "\n";
  }
  uint32_t job_id = parsed.value().job_id;
  if (const std::optional<uint32_t> task = parsed.value().array_task) {
    // JOBID_TASK: the task's own job id, from the array's records in slurmctld.
    const Result<std::vector<ArrayRecord>> records = load_array_records(job_id);
    if (!records) {
      err << "shareq: why: " << records.error().to_string() << "\n";
      return kExitFailed;
    }
    const Result<ArrayTaskJob> resolved = resolve_array_task(records.value(), job_id, *task);
    if (!resolved) {
      err << "shareq: why: " << resolved.error().to_string() << "\n";
      return kExitFailed;
    }
    job_id = resolved.value().job_id;
    if (!resolved.value().note.empty()) out << resolved.value().note << "\n";
  }
  if (state.job(job_id) == nullptr) {
    err << "shareq: why: slurmctld does not know job " << job_id
        << " (it never existed, or ended more than MinJobAge ago: see sacct)\n";
    return kExitFailed;
  }
  out << explain_job(state, job_id, state.now());
  return kExitOk;
}

}  // namespace shareq::tool
