// shareq why JOBID [--config FILE]
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

constexpr std::string_view kSynopsis = "shareq why JOBID [--config FILE]";
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
  const text::Number id = text::parse_decimal(operand, UINT32_MAX);
  if (id.status != text::NumberStatus::Ok || id.value == 0) {
    err << "shareq: why: JOBID: " << text::quote(operand)
        << " is not a job id; allowed: a number 1.." << UINT32_MAX << "\nusage: " << kSynopsis
        << "\n";
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
  const auto job_id = static_cast<uint32_t>(id.value);
  if (state.job(job_id) == nullptr) {
    err << "shareq: why: slurmctld does not know job " << job_id
        << " (it never existed, or ended more than MinJobAge ago: see sacct)\n";
    return kExitFailed;
  }
  out << explain_job(state, job_id, state.now());
  return kExitOk;
}

}  // namespace shareq::tool
