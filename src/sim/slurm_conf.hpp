// The part of a site's slurm.conf the simulator needs: nodes with their GPUs and partitions.
//
// Read: NodeName=LIST [Gres=gpu:N | gpu:TYPE:N [,...]] lines (NodeName=DEFAULT sets the Gres of
// the lines after it), PartitionName=NAME Nodes=LIST|ALL lines (PartitionName=DEFAULT sets
// their Nodes), the scheduling cadence: SchedulerType and SchedulerParameters
// (sched_params.hpp; the last line of each counts, Slurm's defaults where absent),
// PriorityCalcPeriod, PriorityDecayHalfLife, PriorityMaxAge, PriorityWeightFairshare and
// PriorityWeightAge (the last line of each; the stock baseline's priority/multifactor), and
// AuthInfo's cred_expire (the last line; a requeued job's BeginTime follows from it). GPUs are the
// sum of every gpu entry of Gres (other GRES ignored; a "(S:0-1)" socket suffix is allowed).
// Include PATH reads another file in place of the line, as Slurm's s_p_parse_file does
// (parse_config.c, _parse_include_directive): a relative PATH is relative to the directory of the
// file that includes it (the current directory when that file's name has no '/'), "%c" in PATH
// is the ClusterName set so far in lower case, no glob is expanded, an empty file is allowed;
// unlike Slurm, includes nest at most SlurmConfLimits::include_depth deep and a file that
// includes itself, directly or not, is an error. Errors in an included file name it and its line.
// Every other line and key is ignored, as the simulator needs none. A slurm.conf that defines no
// node is an error. Keys are case-insensitive, '#' starts a comment.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/hostlist.hpp"
#include "sim/input_error.hpp"
#include "sim/sched_params.hpp"

namespace shareq::sim {

struct SimNode {
  std::string name;
  int64_t gpus = 0;
};

struct SimPartition {
  std::string name;
  std::vector<int> nodes;  // indices into SlurmCluster::nodes, in slurm.conf order
};

struct SlurmCluster {
  std::vector<SimNode> nodes;  // in slurm.conf order
  std::vector<SimPartition> partitions;
  SchedulerParams scheduler;
  // PriorityCalcPeriod and PriorityDecayHalfLife, in seconds (Slurm's defaults: 5 min, 7 days;
  // 0: no decay). shareq accrues usage every policy::recalc_period_s(priority_calc_period_s).
  int64_t priority_calc_period_s = int64_t{5} * 60;
  int64_t decay_half_life_s = int64_t{7} * 86400;
  // priority/multifactor's fair-share and age weights (Slurm's default 0) and PriorityMaxAge
  // (7 days): the stock baseline's order (stock_scheduler.cpp). shareq reads none of them.
  uint32_t weight_fairshare = 0;
  uint32_t weight_age = 0;
  int64_t max_age_s = int64_t{7} * 86400;
  // How long Slurm holds a requeued (preempted) job: its BeginTime is cred_expire + 1 s from the
  // requeue (job_mgr.c); cred_expire is AuthInfo's, 120 s by default.
  int64_t requeue_hold_s = kDefaultCredExpireS + 1;
  static constexpr int64_t kDefaultCredExpireS = 120;

  // nullptr when there is no such partition (names compare exactly, as Slurm's do).
  [[nodiscard]] const SimPartition* find_partition(std::string_view name) const;
};

// Most nodes a slurm.conf may define, and most nodes its partitions may list together (a node
// in two partitions counts twice): what the simulator holds in memory stays bounded whatever the
// file says (each line's host list is bounded by kMaxHostlistNames, the lines are not).
inline constexpr size_t kMaxSimNodes = 100'000;
inline constexpr size_t kMaxSimPartitionNodes = 1'000'000;

struct SlurmConfLimits {
  size_t hostlist_names = kMaxHostlistNames;  // one NodeName= or Nodes= list
  size_t nodes = kMaxSimNodes;
  size_t partition_nodes = kMaxSimPartitionNodes;
  size_t include_depth = 8;                  // files included by included files, and so on
  size_t bytes = kSlurmConfInput.max_bytes;  // the slurm.conf and its included files together
};

// How an Include's file is read: its text, or the error (line 0) that says why not.
using IncludeReader = std::function<std::variant<std::string, InputError>(const std::string&)>;

// Errors name the line and the key: a bad node list, a Gres count that is not a number, a node
// defined twice, a partition naming a node no NodeName line defines, a partition defined twice,
// more nodes than kMaxSimNodes (or partitions listing more than kMaxSimPartitionNodes), a
// SchedulerType or a SchedulerParameters value the simulator does not take, an Include whose file
// cannot be read (or is not given a reader: read_include empty), nests too deep, repeats a file
// being read or passes limits.bytes, no node at all. Smaller limits exercise the same paths
// faster (the fuzzer).
Parsed<SlurmCluster> parse_slurm_conf(std::string_view text, std::string_view file,
                                      const SlurmConfLimits& limits = {},
                                      const IncludeReader& read_include = {});

// An Include's file read from disk (read_input_file, kSlurmConfInput's limit): the IncludeReader
// of `shareq sim`, which reads the top file itself.
std::variant<std::string, InputError> read_include_from_disk(const std::string& path);

}  // namespace shareq::sim
