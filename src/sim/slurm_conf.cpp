#include "sim/slurm_conf.hpp"

#include <fstream>
#include <sstream>
#include <unordered_map>

#include "sim/hostlist.hpp"
#include "sim/time_text.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

constexpr uint64_t kMaxGpusPerNode = 1'000'000;

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

std::vector<KeyValue> key_values(std::string_view line) {
  std::vector<KeyValue> out;
  for (std::string_view word : split_words(line)) {
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos) continue;
    out.push_back({word.substr(0, eq), word.substr(eq + 1)});
  }
  return out;
}

std::optional<std::string_view> find_key(const std::vector<KeyValue>& kvs, std::string_view key) {
  for (const auto& kv : kvs) {
    if (text::iequals(kv.key, key)) return kv.value;
  }
  return std::nullopt;
}

// "gpu:8", "gpu:a100:4(S:0-1)", "gpu:a100:4,gpu:v100:2,mps:100" -> the GPUs.
Result<int64_t> parse_gres_gpus(std::string_view gres) {
  int64_t total = 0;
  for (std::string_view entry : text::split(gres, ',')) {
    entry = entry.substr(0, entry.find('('));
    const auto parts = text::split(entry, ':');
    if (parts.empty() || !text::iequals(parts[0], "gpu")) continue;
    if (parts.size() < 2 || parts.size() > 3) {
      return Error{"Gres", text::quote(entry) + " is not gpu:N or gpu:TYPE:N"};
    }
    const auto count = text::parse_decimal(parts.back(), kMaxGpusPerNode);
    if (count.status != text::NumberStatus::Ok) {
      return Error{"Gres", "in " + text::quote(entry) + ": " +
                               text::number_message(parts.back(), count, "0..1000000")};
    }
    total += static_cast<int64_t>(count.value);
  }
  return total;
}

class Reader {
 public:
  Reader(std::string_view file, const SlurmConfLimits& limits) : file_(file), limits_(limits) {}

  void line(std::string_view text, int number) {
    const auto kvs = key_values(strip_comment(text));
    if (kvs.empty()) return;
    if (text::iequals(kvs[0].key, "NodeName")) node_line(kvs, number);
    if (text::iequals(kvs[0].key, "PartitionName")) partition_line(kvs, number);
    if (text::iequals(kvs[0].key, "SchedulerType"))
      scheduler_type_ = {std::string(kvs[0].value), number};
    if (text::iequals(kvs[0].key, "SchedulerParameters"))
      scheduler_params_ = {std::string(kvs[0].value), number};
    if (text::iequals(kvs[0].key, "PriorityCalcPeriod"))
      duration(kvs[0], number, cluster_.priority_calc_period_s);
    if (text::iequals(kvs[0].key, "PriorityDecayHalfLife"))
      duration(kvs[0], number, cluster_.decay_half_life_s);
    if (text::iequals(kvs[0].key, "AuthInfo")) auth_info(kvs[0].value, number);
  }

  Parsed<SlurmCluster> finish() {
    scheduler();
    Parsed<SlurmCluster> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) out.value = std::move(cluster_);
    return out;
  }

 private:
  void error(int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({std::string(file_), line, std::move(field), std::move(message)});
    }
  }

  // A duration key (PriorityCalcPeriod, PriorityDecayHalfLife) into `seconds`; the last line
  // counts.
  void duration(const KeyValue& kv, int number, int64_t& seconds) {
    const auto parsed = parse_slurm_minutes(kv.value);
    if (!parsed) {
      return error(number, std::string(kv.key),
                   text::quote(kv.value) +
                       " is not a duration; allowed: MINUTES, MINUTES:SECONDS, "
                       "HOURS:MINUTES:SECONDS, DAYS-HOURS[:MINUTES[:SECONDS]]");
    }
    seconds = *parsed;
  }

  // AuthInfo's cred_expire=SECONDS, among its comma-separated options; Slurm's default when
  // absent. Slurm refuses a value under 5 (it logs an error and keeps its default): an error here.
  void auth_info(std::string_view value, int number) {
    int64_t cred_expire = SlurmCluster::kDefaultCredExpireS;
    for (const auto option : text::split(value, ',')) {
      constexpr std::string_view kKey = "cred_expire=";
      if (option.substr(0, kKey.size()) != kKey) continue;
      const std::string_view seconds = option.substr(kKey.size());
      constexpr std::string_view kAllowed = "whole seconds, 5..2147483647";
      const auto n = text::parse_decimal(seconds, 2147483647);
      if (n.status != text::NumberStatus::Ok) {
        return error(number, "AuthInfo cred_expire", text::number_message(seconds, n, kAllowed));
      }
      if (n.value < 5) {
        return error(number, "AuthInfo cred_expire",
                     text::quote(seconds) + " is out of range; allowed: " + std::string(kAllowed));
      }
      cred_expire = static_cast<int64_t>(n.value);
    }
    cluster_.requeue_hold_s = cred_expire + 1;
  }

  // The last SchedulerType and SchedulerParameters lines, on Slurm's defaults.
  void scheduler() {
    auto& params = cluster_.scheduler;
    if (scheduler_type_.line > 0) {
      auto set = apply_scheduler_type(scheduler_type_.value, params);
      if (!set) error(scheduler_type_.line, set.error().field, set.error().message);
    }
    if (scheduler_params_.line > 0) {
      auto set = apply_scheduler_parameters(scheduler_params_.value, params);
      if (!set) error(scheduler_params_.line, set.error().field, set.error().message);
    }
  }

  void node_line(const std::vector<KeyValue>& kvs, int number) {
    const auto gres = find_key(kvs, "Gres");
    int64_t gpus = default_gpus_;
    if (gres) {
      auto parsed = parse_gres_gpus(*gres);
      if (!parsed) return error(number, "Gres", parsed.error().message);
      gpus = parsed.value();
    }
    if (text::iequals(kvs[0].value, "DEFAULT")) {
      default_gpus_ = gpus;
      return;
    }
    if (too_many_nodes_) return;  // said once; expanding more lists would only cost time
    auto names = expand_hostlist(kvs[0].value, limits_.hostlist_names);
    if (!names) return error(number, "NodeName", names.error().message);
    if (cluster_.nodes.size() + names.value().size() > limits_.nodes) {
      too_many_nodes_ = true;
      const std::string most = std::to_string(limits_.nodes);
      return error(number, "NodeName",
                   "more than " + most + " nodes in all; the simulator takes at most " + most);
    }
    for (auto& name : names.value()) add_node(name, gpus, number);
  }

  void add_node(std::string name, int64_t gpus, int number) {
    const int index = static_cast<int>(cluster_.nodes.size());
    if (!node_index_.emplace(name, index).second) {
      if (errors_full()) return;  // the message would be dropped: do not build it
      return error(number, "NodeName", "node " + text::quote(name) + " is defined twice");
    }
    cluster_.nodes.push_back({std::move(name), gpus});
  }

  bool errors_full() const { return errors_.size() >= kMaxInputErrors; }

  void partition_line(const std::vector<KeyValue>& kvs, int number) {
    const auto nodes = find_key(kvs, "Nodes");
    if (text::iequals(kvs[0].value, "DEFAULT")) {
      if (nodes) default_nodes_ = std::string(*nodes);
      return;
    }
    if (kvs[0].value.empty()) return error(number, "PartitionName", "the name is empty");
    if (cluster_.find_partition(kvs[0].value) != nullptr) {
      return error(number, "PartitionName",
                   "partition " + text::quote(kvs[0].value) + " is defined twice");
    }
    SimPartition partition{std::string(kvs[0].value), {}};
    if (!partition_nodes(nodes ? std::string(*nodes) : default_nodes_, partition, number)) return;
    cluster_.partitions.push_back(std::move(partition));
  }

  bool partition_nodes(const std::string& list, SimPartition& partition, int number) {
    if (list.empty()) return true;
    if (too_many_partition_nodes_) return false;  // said once
    if (text::iequals(list, "ALL")) {
      if (!room_in_partitions(cluster_.nodes.size(), number)) return false;
      for (size_t i = 0; i < cluster_.nodes.size(); ++i) partition.nodes.push_back(int(i));
      return true;
    }
    auto names = expand_hostlist(list, limits_.hostlist_names);
    if (!names) {
      error(number, "Nodes", names.error().message);
      return false;
    }
    if (!room_in_partitions(names.value().size(), number)) return false;
    for (const auto& name : names.value()) {
      const auto found = node_index_.find(name);
      if (found == node_index_.end()) {
        error(number, "Nodes",
              "node " + text::quote(name) + " is not defined by a NodeName line before this one");
        return false;
      }
      partition.nodes.push_back(found->second);
    }
    return true;
  }

  bool room_in_partitions(size_t more, int number) {
    partition_nodes_ += more;
    if (partition_nodes_ <= limits_.partition_nodes) return true;
    too_many_partition_nodes_ = true;
    const std::string most = std::to_string(limits_.partition_nodes);
    error(number, "Nodes",
          "the partitions list more than " + most +
              " nodes in all (a node in two partitions counts twice); the simulator takes at "
              "most " +
              most);
    return false;
  }

  std::string_view file_;
  SlurmConfLimits limits_;
  SlurmCluster cluster_;
  std::vector<InputError> errors_;
  std::unordered_map<std::string, int> node_index_;
  int64_t default_gpus_ = 0;
  std::string default_nodes_;
  size_t partition_nodes_ = 0;  // every partition's node list together
  bool too_many_nodes_ = false;
  bool too_many_partition_nodes_ = false;
  struct Line {
    std::string value;
    int line = 0;
  };
  Line scheduler_type_, scheduler_params_;
};

}  // namespace

const SimPartition* SlurmCluster::find_partition(std::string_view name) const {
  for (const auto& partition : partitions) {
    if (partition.name == name) return &partition;
  }
  return nullptr;
}

Parsed<SlurmCluster> parse_slurm_conf(std::string_view text, std::string_view file,
                                      const SlurmConfLimits& limits) {
  Reader reader(file, limits);
  int number = 0;
  for (std::string_view line : split_lines(text)) reader.line(line, ++number);
  return reader.finish();
}

Parsed<SlurmCluster> load_slurm_conf(const std::string& path) {
  return load_input<SlurmCluster>(path, [](std::string_view text, std::string_view file) {
    return parse_slurm_conf(text, file);
  });
}

}  // namespace shareq::sim
