#include "sim/slurm_conf.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
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

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "16 MiB", or bytes under 1 MiB (the fuzzer's small limits).
std::string size_text(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB"
                                    : std::to_string(bytes) + " bytes";
}

// The same file, however its name is spelled ("a/./b" and "a/b"); symlinks are not followed.
bool same_file(const std::string& a, const std::string& b) {
  return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
}

class Reader {
 public:
  Reader(std::string_view top_file, const SlurmConfLimits& limits,
         const IncludeReader& read_include)
      : top_file_(top_file), limits_(limits), read_include_(read_include) {}

  // One file's lines, in place of the Include line that names it (the top file: none). `path`
  // names it in errors and is where its relative Includes start from.
  void file(std::string_view text, const std::string& path) {
    bytes_ += text.size();
    files_.push_back(path);
    int number = 0;
    for (std::string_view line : split_lines(text)) this->line(line, ++number);
    files_.pop_back();
  }

  void line(std::string_view text, int number) {
    const std::string_view content = strip_comment(text);
    const auto words = split_words(content);
    if (!words.empty() && text::iequals(words[0], "Include")) return include(words, number);
    const auto kvs = key_values(content);
    if (kvs.empty()) return;
    if (text::iequals(kvs[0].key, "ClusterName")) cluster_name_ = lower(kvs[0].value);
    if (text::iequals(kvs[0].key, "NodeName")) node_line(kvs, number);
    if (text::iequals(kvs[0].key, "PartitionName")) partition_line(kvs, number);
    if (text::iequals(kvs[0].key, "SchedulerType"))
      scheduler_type_ = {std::string(kvs[0].value), files_.back(), number};
    if (text::iequals(kvs[0].key, "SchedulerParameters"))
      scheduler_params_ = {std::string(kvs[0].value), files_.back(), number};
    if (text::iequals(kvs[0].key, "PriorityCalcPeriod"))
      duration(kvs[0], number, cluster_.priority_calc_period_s);
    if (text::iequals(kvs[0].key, "PriorityDecayHalfLife"))
      duration(kvs[0], number, cluster_.decay_half_life_s);
    if (text::iequals(kvs[0].key, "PriorityMaxAge")) duration(kvs[0], number, cluster_.max_age_s);
    if (text::iequals(kvs[0].key, "PriorityWeightFairshare"))
      weight(kvs[0], number, cluster_.weight_fairshare);
    if (text::iequals(kvs[0].key, "PriorityWeightAge")) weight(kvs[0], number, cluster_.weight_age);
    if (text::iequals(kvs[0].key, "AuthInfo")) auth_info(kvs[0].value, number);
  }

  Parsed<SlurmCluster> finish() {
    scheduler();
    if (errors_.empty() && cluster_.nodes.empty()) {
      error_in(top_file_, 0, "NodeName",
               "slurm.conf defines no NodeName lines; the simulator needs the nodes "
               "(NodeName=LIST Gres=gpu:N), in the file or a file it Includes");
    }
    Parsed<SlurmCluster> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) out.value = std::move(cluster_);
    return out;
  }

 private:
  void error_in(const std::string& file, int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({file, line, std::move(field), std::move(message)});
    }
  }
  void error(int line, std::string field, std::string message) {
    error_in(files_.back(), line, std::move(field), std::move(message));
  }

  // Include PATH: the file's lines here, as Slurm reads them (slurm_conf.hpp).
  void include(const std::vector<std::string_view>& words, int number) {
    if (words.size() != 2) {
      return error(number, "Include",
                   words.size() < 2 ? "needs a file; allowed: Include PATH"
                                    : "takes one file, " + text::quote(words[2]) +
                                          " follows it; allowed: Include PATH");
    }
    const auto path = include_path(words[1], number);
    if (!path || !may_include(*path, number)) return;
    auto text = read_include_(*path);
    if (const auto* failed = std::get_if<InputError>(&text)) {
      return error(number, "Include", failed->to_string());
    }
    const std::string& body = std::get<std::string>(text);
    if (body.size() > limits_.bytes - std::min(bytes_, limits_.bytes)) {
      return error(number, "Include",
                   "with " + text::quote(*path) + " the slurm.conf and its included files are " +
                       "larger than " + size_text(limits_.bytes) +
                       " in all (the limit for a slurm.conf)");
    }
    file(body, *path);
  }

  // PATH with "%c" replaced by the ClusterName, relative to the including file's directory.
  std::optional<std::string> include_path(std::string_view name, int number) {
    std::string path;
    for (size_t i = 0; i < name.size(); ++i) {
      if (name.substr(i, 2) != "%c") {
        path += name[i];
        continue;
      }
      if (cluster_name_.empty()) {
        error(number, "Include",
              text::quote(name) + ": %c is the ClusterName, and no ClusterName line comes first");
        return std::nullopt;
      }
      path += cluster_name_;
      ++i;
    }
    if (path.front() == '/') return path;
    const std::string& including = files_.back();
    const size_t slash = including.rfind('/');
    return slash == std::string::npos ? path : including.substr(0, slash + 1) + path;
  }

  // False, with the error, for an Include too deep, in a cycle, or that cannot be read here.
  bool may_include(const std::string& path, int number) {
    if (files_.size() > limits_.include_depth) {
      const std::string most = std::to_string(limits_.include_depth);
      error(number, "Include",
            text::quote(path) + " would be included " + std::to_string(files_.size()) +
                " deep; allowed: Include nested at most " + most + " deep");
      return false;
    }
    for (const auto& open : files_) {
      if (!same_file(open, path)) continue;
      error(number, "Include",
            text::quote(path) + " is already being read (" + text::join(files_, " includes ") +
                "): an Include cycle");
      return false;
    }
    if (!read_include_) {
      error(number, "Include", text::quote(path) + ": no file is read here");
      return false;
    }
    return true;
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

  // A PriorityWeight* key into `weight` (Slurm reads an unsigned 32-bit integer); the last line
  // counts.
  void weight(const KeyValue& kv, int number, uint32_t& weight) {
    const auto n = text::parse_decimal(kv.value, UINT32_MAX);
    if (n.status != text::NumberStatus::Ok) {
      return error(number, std::string(kv.key),
                   text::number_message(kv.value, n, "whole numbers, 0..4294967295"));
    }
    weight = static_cast<uint32_t>(n.value);
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
      if (!set)
        error_in(scheduler_type_.file, scheduler_type_.line, set.error().field,
                 set.error().message);
    }
    if (scheduler_params_.line > 0) {
      auto set = apply_scheduler_parameters(scheduler_params_.value, params);
      if (!set)
        error_in(scheduler_params_.file, scheduler_params_.line, set.error().field,
                 set.error().message);
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
    std::vector<bool> listed(cluster_.nodes.size());  // a node listed twice is one (Slurm's bitmap)
    for (const auto& name : names.value()) {
      const auto found = node_index_.find(name);
      if (found == node_index_.end()) {
        error(number, "Nodes",
              "node " + text::quote(name) + " is not defined by a NodeName line before this one");
        return false;
      }
      if (listed[found->second]) continue;
      listed[found->second] = true;
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

  std::string top_file_;
  SlurmConfLimits limits_;
  const IncludeReader& read_include_;
  std::vector<std::string> files_;  // the file being read, and the files including it
  size_t bytes_ = 0;                // of every file read
  std::string cluster_name_;        // the last ClusterName so far, in lower case (Include's %c)
  SlurmCluster cluster_;
  std::vector<InputError> errors_;
  std::unordered_map<std::string, int> node_index_;
  int64_t default_gpus_ = 0;
  std::string default_nodes_;
  size_t partition_nodes_ = 0;  // every partition's node list together
  bool too_many_nodes_ = false;
  bool too_many_partition_nodes_ = false;
  struct Line {
    std::string value, file;
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
                                      const SlurmConfLimits& limits,
                                      const IncludeReader& read_include) {
  Reader reader(file, limits, read_include);
  reader.file(text, std::string(file));
  return reader.finish();
}

std::variant<std::string, InputError> read_include_from_disk(const std::string& path) {
  return read_input_file(path, kSlurmConfInput);
}

}  // namespace shareq::sim
