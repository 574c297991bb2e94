// Slurm's scheduling cadence, as slurmctld 22.05 reads it from slurm.conf (SchedulerType and
// SchedulerParameters), for the simulator's two kinds of pass (simulate.hpp):
//  - the main pass (job_scheduler.c, _schedule): at each job end (its epilog's completion), every
//    sched_interval (a full-queue pass), and after submissions once batch_sched_delay has passed
//    since the last of those two background passes. It tests at most partition_job_depth jobs
//    of each partition, and, unless it is the periodic pass, default_queue_depth + 1 jobs in all;
//    a job that does not fit stops its partition for the rest of the pass (fail_by_part) unless
//    its priority is below bf_min_prio_reserve;
//  - the backfill pass (backfill.c), with SchedulerType=sched/backfill: every bf_interval, over
//    the pending jobs in priority order, at most bf_max_job_test of them, each started when it
//    fits now. Without time limits Slurm's backfill can place no reservation (a running job ends
//    a year after its start, past bf_window), so a job that does not fit holds nothing back; the
//    simulator's backfill never reserves.
// Keys are Slurm's (case-insensitive; the first occurrence counts, as Slurm's xstrcasestr finds
// it); other keys are ignored. Values Slurm would reject (it logs them and takes its default) are
// errors here, naming the parameter and the allowed values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "result.hpp"

namespace shareq::sim {

struct SchedulerParams {              // Slurm 22.05's defaults
  bool backfill = true;               // SchedulerType=sched/backfill; false: sched/builtin
  int64_t sched_interval_s = 60;      // -1: no main pass at all (Slurm's sched_interval=-1)
  int64_t batch_sched_delay_s = 3;    // 0: a pass at each submission
  int64_t default_queue_depth = 100;  // an event's main pass tests this + 1 jobs at most
  int64_t partition_job_depth = 0;    // 0: no bound per partition
  int64_t bf_interval_s = 30;         // -1: no backfill pass
  int64_t bf_max_job_test = 500;
  int64_t bf_min_prio_reserve = 0;  // 0: every job that does not fit stops its partition
  [[nodiscard]] bool main_passes() const { return sched_interval_s >= 0; }
  [[nodiscard]] bool backfill_passes() const { return backfill && bf_interval_s > 0; }
};

// Sets the parameters a comma-separated SchedulerParameters value names (other keys ignored, as
// Slurm ignores them in slurm.conf). Error: the parameter and what is allowed.
Result<bool> apply_scheduler_parameters(std::string_view list, SchedulerParams& params);

// Error for the first item of the list that is not KEY=VALUE with a key the simulator reads
// (--sched-params: a misspelt key would else be ignored in silence), naming the allowed keys.
Result<bool> check_modelled_parameters(std::string_view list);

// One parameter's value ("sched_interval", "0"), in Slurm's range for it. Error: the parameter
// and what is allowed. Precondition: key is one the simulator reads.
Result<int64_t> parse_scheduler_parameter(std::string_view key, std::string_view value);

// SchedulerType: sched/backfill or sched/builtin.
Result<bool> apply_scheduler_type(std::string_view type, SchedulerParams& params);

}  // namespace shareq::sim
