#include "warm/node_files.hpp"

#include <algorithm>
#include <sstream>

#include "warm/digest_file.hpp"
#include "warm/pool.hpp"

namespace shareq::warm {
namespace {

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string format_warm_dir_state(const WarmDirState& state) {
  return state.kind + " " + std::to_string(state.value) + " " + state.digest + "\n";
}

std::optional<WarmDirState> parse_warm_dir_state(std::string_view text) {
  std::istringstream in{std::string(text)};
  WarmDirState s;
  if (!(in >> s.kind >> s.value)) return std::nullopt;
  in >> s.digest;
  if (!s.digest.empty() && !is_sha256_hex(s.digest, false)) s.digest.clear();
  return s;
}

std::string format_prepared(const PreparedJob& p) {
  return "image_path=" + one_line(p.image_path) + "\ndigest=" + one_line(p.digest) +
         "\nwarm_dir=" + one_line(p.warm_dir) + "\nerror=" + one_line(p.error) +
         "\nboot=" + one_line(p.boot) + "\n";
}

PreparedJob parse_prepared(std::string_view text) {
  PreparedJob out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    const std::string value(line.substr(eq + 1));
    if (key == "image_path") out.image_path = value;
    if (key == "digest") out.digest = value;
    if (key == "warm_dir") out.warm_dir = value;
    if (key == "error") out.error = value;
    if (key == "boot") out.boot = value;
  }
  return out;
}

std::string node_boot(std::string_view kernel_boot_id, std::string_view init_start_ticks) {
  std::string boot(kernel_boot_id);
  if (boot.empty() || init_start_ticks.empty()) return boot;
  return boot.append("+").append(init_start_ticks);
}

std::string init_start_ticks(std::string_view proc_stat) {
  const size_t comm_end = proc_stat.rfind(')');
  if (comm_end == std::string_view::npos) return "";
  std::istringstream fields{std::string(proc_stat.substr(comm_end + 1))};
  std::string field;
  for (int number = 3; number <= 22; ++number) {
    if (!(fields >> field)) return "";
  }
  const bool decimal =
      !field.empty() && field.size() <= 20 &&
      std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
  return decimal ? field : "";
}

bool same_boot(std::string_view recorded, std::string_view current) {
  if (recorded == current) return true;
  const size_t recorded_plus = recorded.find('+');
  const size_t current_plus = current.find('+');
  if (recorded_plus != std::string_view::npos && current_plus != std::string_view::npos) {
    return false;
  }
  return !recorded.empty() && recorded.substr(0, recorded_plus) == current.substr(0, current_plus);
}

std::vector<std::string> split_warm_names(std::string_view list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string name(list.substr(start, comma - start));
    if (is_node_warm_name(name)) names.push_back(std::move(name));
    start = comma + 1;
  }
  return names;
}

}  // namespace shareq::warm
