// The C++ face of usage_file.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctld_api.hpp"
#include "result.hpp"
#include "usage_file.h"

namespace shareq::ctld {

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

std::string format_usage(const UsageFile& file);
// Error::field is "PATH:LINE" (or the label given); the message says what is wrong.
Result<UsageFile> parse_usage(std::string_view text, std::string_view label);
SHAREQ_CTLD_API Result<UsageFile> read_usage_file(const std::string& path);
// nullopt on success, else the error sentence.
SHAREQ_CTLD_API std::optional<std::string> write_usage_file(const std::string& path,
                                                            const UsageFile& file);

}  // namespace shareq::ctld
