// Output helpers shared by the subcommands: aligned text tables for people, JSON for scripts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace shareq::tool {

// Columns separated by two spaces, each as wide as its widest cell; a column whose cells are all
// numbers (digits with at most one decimal point, or UNLIMITED, or "-" for nothing) is
// right-aligned, header included, the others left-aligned. No trailing spaces.
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add(std::vector<std::string> row);  // a short row is padded with empty cells
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;  // rows_[0] is the header
};

// An amount or limit as a table cell: the number, or "UNLIMITED".
std::string cell(int64_t amount);
// An amount in words: "1 node", "4 nodes", "1 GPU", "8 GPUs", "UNLIMITED".
std::string amount_text(int64_t amount, Unit unit);

// A duration for people: "45s", "14m 30s", "2h 05m", "3d 4h".
std::string duration_text(int64_t seconds);
// A time as local "YYYY-MM-DD HH:MM:SS".
std::string local_time_text(int64_t epoch_seconds);
// "YYYY-MM-DDTHH:MM:SS" (what the plugins write, in local time) to seconds since the epoch.
std::optional<int64_t> parse_local_time(std::string_view iso);

// JSON string literal with the quotes.
std::string json_string(std::string_view text);
// A JSON number, or null for kUnlimited.
std::string json_amount(int64_t amount);

}  // namespace shareq::tool
