// shareq sim's output: tables for people, JSON for scripts, the per-job CSV. Pure functions of
// the results, so the output is as deterministic as the simulation.
#pragma once

#include <string>
#include <vector>

#include "sim/sim_result.hpp"
#include "sim/trace.hpp"

namespace shareq::tool {

struct SimReportInput {
  std::string trace_file;
  const sim::Trace* trace = nullptr;
  std::vector<sim::SimResult> runs;  // the main configuration first
};

std::string sim_tables(const SimReportInput& input);
std::string sim_json(const SimReportInput& input);
// id,share,family,submit,start,end,wait,preempted,nodes: one row per job of `run`.
std::string sim_jobs_csv(const sim::SimResult& run);

}  // namespace shareq::tool
