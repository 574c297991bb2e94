// Errors of the simulator's input parsers (slurm.conf, traces, the SWF map): each names the file,
// the line, the field and, in its message, what is allowed.
#pragma once

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

}  // namespace shareq::sim
