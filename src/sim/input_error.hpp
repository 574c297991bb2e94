// Errors of the simulator's input parsers (slurm.conf, traces, the SWF map): each names the file,
// the line, the field and, in its message, what is allowed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shareq::sim {

struct InputError {
  std::string file;
  int line = 0;  // 0 when the problem is not on one line
  std::string field;
  std::string message;

  // "FILE:LINE: FIELD: MESSAGE"; ":LINE" left out when line is 0, "FIELD: " when field is empty.
  [[nodiscard]] std::string to_string() const {
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
    if (!field.empty()) out += field + ": ";
    return out + message;
  }
};

// What a parser gives: the value exactly when errors is empty.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::vector<InputError> errors;
};

// Parsers stop collecting after this many errors (a wrong --trace-format would give one per line).
inline constexpr size_t kMaxInputErrors = 20;

// The lines of a text, without their '\n' (and a '\r' before it); line numbers start at 1.
std::vector<std::string_view> split_lines(std::string_view text);

// Whitespace-separated words of a line.
std::vector<std::string_view> split_words(std::string_view line);

// The line without a '#' comment and surrounding whitespace.
std::string_view strip_comment(std::string_view line);

// A decimal integer with an optional leading '-', at most 10^12 in size; nullopt otherwise.
std::optional<int64_t> signed_decimal(std::string_view text);

// The whole file as text; nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

// Reads `path` and parses it with parse(text, path); an unreadable file is one error, line 0.
template <typename T, typename Parse>
Parsed<T> load_input(const std::string& path, Parse parse) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) return {std::nullopt, {{path, 0, "", "cannot read the file"}}};
  return parse(*text, path);
}

}  // namespace shareq::sim
