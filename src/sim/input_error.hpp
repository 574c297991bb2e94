// Errors of the simulator's input parsers (slurm.conf, traces, the SWF map): each names the file,
// the line, the field and, in its message, what is allowed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
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

// What a simulator input is, for its size limit and the message that names it.
struct InputKind {
  std::string_view name;  // "trace"
  size_t max_bytes;
};

// The limits, far above real files and far below what would exhaust memory (a file that grows
// while it is read, or a pipe that never ends, stops here, not in std::bad_alloc):
//  - a trace: real sacct and SWF traces of a year are tens of MiB (the largest of the Parallel
//    Workloads Archive, about 300 MiB uncompressed); the parsed jobs take about as much again;
//  - a slurm.conf with the files it includes: 100,000 nodes (kMaxSimNodes) on lines of their own
//    take under 10 MiB; a real one is a few KiB to a few hundred;
//  - an SWF map: a line per user or group, a few KiB; 4 MiB as shareq.conf's (kMaxConfigFileBytes).
inline constexpr InputKind kTraceInput{"trace", size_t{1} << 30};
inline constexpr InputKind kSlurmConfInput{"slurm.conf", size_t{16} << 20};
inline constexpr InputKind kSwfMapInput{"SWF map", size_t{4} << 20};

// The whole file as text, read in blocks up to kind.max_bytes, or the one error (line 0) that
// says why not: "cannot read: REASON" (the OS's, e.g. "Permission denied"), "is a FIFO, not a
// regular file; allowed: ..." (open_regular_file: what is not a regular file is refused before any
// read, but for a pipe this process holds, /dev/stdin), or "larger than N MiB (the limit for a
// KIND)".
std::variant<std::string, InputError> read_input_file(const std::string& path,
                                                      const InputKind& kind);

}  // namespace shareq::sim
