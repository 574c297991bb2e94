// The decayed-usage state file of priority/shareq as text (StateSaveLocation/shareq_usage; the
// plugin, plugins/ctld/usage_file.cpp, reads and writes the file itself):
//
//   # shareq decayed usage: SHARE FAMILY UNIT_SECONDS
//   version=2
//   last_ran=1700000000
//   prodexp1 p4 7200.5
//   end
//
// Empty lines and lines starting with '#' are skipped. Then "version=2", then
// "last_ran=SECONDS" (seconds since the epoch, >= 0), then one record a line: the share (lower
// case), the family and the decayed usage in the family's unit x seconds (finite, >= 0),
// separated by spaces or tabs, then "end". Names are 1-64 of [A-Za-z0-9_.-]. The "end" line and
// the final newline tell a complete file from a truncated one (cut at a line boundary or not).
// A "version=1" file (an earlier shareq's, without the "end" line) is still read. Pure: no file,
// no clock, no Slurm header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace shareq {

struct UsageRecord {
  std::string share;   // lower-case share name
  std::string family;  // family name
  double value = 0;    // decayed usage, family unit x seconds
  bool operator==(const UsageRecord&) const = default;
};

struct UsageFile {
  int64_t last_ran = 0;  // when usage was last accrued (epoch seconds)
  std::vector<UsageRecord> records;
  bool operator==(const UsageFile&) const = default;
};

// The text above; each value with 17 significant digits, so that it parses back exactly.
// Precondition: names as parse_usage accepts them, values finite and >= 0, last_ran >= 0.
std::string format_usage(const UsageFile& file);

// Never throws, never crashes. A text that is empty, truncated or malformed in any way is
// refused as a whole: an Error whose field is "LABEL:LINE" (line 0 for the whole text) and whose
// message says what is wrong.
Result<UsageFile> parse_usage(std::string_view text, std::string_view label);

}  // namespace shareq
