// The decayed-usage state file of priority/shareq, StateSaveLocation/shareq_usage:
//
//   # shareq decayed usage: SHARE FAMILY UNIT_SECONDS
//   version=1
//   last_ran=1700000000
//   prodexp1 p4 7200.5
//
// The text's format and parser are the core's (usage_format.hpp); this is the file itself,
// written atomically (PATH.new, fsync, rename: state_file.hpp). A file that is missing,
// truncated or malformed in any way is refused as a whole, with the line at fault; the caller
// then starts from zero.
#pragma once

#include <optional>
#include <string>

#include "ctld_api.hpp"
#include "result.hpp"
#include "usage_format.hpp"

namespace shareq::ctld {

using shareq::format_usage;
using shareq::parse_usage;
using shareq::UsageFile;
using shareq::UsageRecord;

// The file's records; an Error naming the path (and the line at fault) when it is missing or bad.
SHAREQ_CTLD_API Result<UsageFile> read_usage_file(const std::string& path);
// nullopt on success, else the error sentence (naming the path).
SHAREQ_CTLD_API std::optional<std::string> write_usage_file(const std::string& path,
                                                            const UsageFile& file);

}  // namespace shareq::ctld
