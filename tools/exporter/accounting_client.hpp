// The exporter's reads that `shareq` does not do: slurmdbd's job records (libslurmdb, as
// `sacct -D` sees them) and slurmctld's ClusterName. Every failure is an Error naming what could
// not be read and libslurm's reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "job_counters.hpp"
#include "result.hpp"

namespace shareq::exporter {

// Every run of every job of `cluster` that started or ended in [from, to] (with every
// requeued and preempted run, times not truncated to the window), steps left out.
Result<std::vector<JobRun>> load_job_runs(const std::string& cluster, int64_t from, int64_t to);

// ClusterName of the slurm.conf slurmctld runs with.
Result<std::string> load_cluster_name();

}  // namespace shareq::exporter
