// The C++ face of usage_file.h: reads and writes the file (StateSaveLocation/shareq_usage).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctld_api.hpp"
#include "result.hpp"
#include "usage_file.h"
#include "usage_format.hpp"

namespace shareq::ctld {

// The file's text, its records and their parser are in the core (usage_format.hpp); this is
// the file itself.
using shareq::format_usage;
using shareq::parse_usage;
using shareq::UsageFile;
using shareq::UsageRecord;

SHAREQ_CTLD_API Result<UsageFile> read_usage_file(const std::string& path);
// nullopt on success, else the error sentence.
SHAREQ_CTLD_API std::optional<std::string> write_usage_file(const std::string& path,
                                                            const UsageFile& file);

}  // namespace shareq::ctld
