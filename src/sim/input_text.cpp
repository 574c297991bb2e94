#include "sim/input_error.hpp"

#include "regular_file.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    begin = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t begin = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > begin) words.push_back(line.substr(begin, i - begin));
  }
  return words;
}

std::string_view strip_comment(std::string_view line) {
  const size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

std::optional<int64_t> signed_decimal(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  const auto parsed = text::parse_decimal(negative ? text.substr(1) : text, 1'000'000'000'000);
  if (parsed.status != text::NumberStatus::Ok) return std::nullopt;
  return negative ? -static_cast<int64_t>(parsed.value) : static_cast<int64_t>(parsed.value);
}

std::variant<std::string, InputError> read_input_file(const std::string& path,
                                                      const InputKind& kind) {
  auto opened = open_regular_file(path, HeldPipes::Read);
  if (auto* problem = std::get_if<std::string>(&opened)) {
    return InputError{path, 0, "", std::move(*problem)};
  }
  auto read = read_to_end_and_close(std::get<int>(opened), kind.max_bytes);
  if (auto* text = std::get_if<std::string>(&read)) return std::move(*text);
  const ReadFailure& failure = std::get<ReadFailure>(read);
  if (failure.too_large) {
    return InputError{path, 0, "",
                      "larger than " + std::to_string(kind.max_bytes >> 20) +
                          " MiB (the limit for a " + std::string(kind.name) + ")"};
  }
  return InputError{path, 0, "", "cannot read: " + failure.why};
}

}  // namespace shareq::sim
