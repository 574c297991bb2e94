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
