#include "sim/input_error.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <system_error>

#include <unistd.h>

#include "regular_file.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

InputError cannot_read(const std::string& path, int error_number) {
  return {path, 0, "", "cannot read: " + std::generic_category().message(error_number)};
}

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
  std::FILE* stream = ::fdopen(std::get<int>(opened), "rb");
  if (stream == nullptr) {
    const int error_number = errno;
    ::close(std::get<int>(opened));
    return cannot_read(path, error_number);
  }
  std::string text;
  std::array<char, 65536> block{};
  size_t got = 0;
  bool too_large = false;
  while (!too_large && (got = std::fread(block.data(), 1, block.size(), stream)) > 0) {
    too_large = got > kind.max_bytes - text.size();
    if (!too_large) text.append(block.data(), got);
  }
  const int failure = !too_large && std::ferror(stream) != 0 ? (errno != 0 ? errno : EIO) : 0;
  std::fclose(stream);
  if (too_large) {
    return InputError{path, 0, "",
                      "larger than " + std::to_string(kind.max_bytes >> 20) +
                          " MiB (the limit for a " + std::string(kind.name) + ")"};
  }
  if (failure != 0) return cannot_read(path, failure);
  return text;
}

}  // namespace shareq::sim
