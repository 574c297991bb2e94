// The submission flags (--share, --share-priority, --image, --keep-alive, --fallback): their
// names and each
// value's parser.
//
// The same parsers run client-side in the SPANK plugin (syntax only) and in slurmctld's
// job_submit/shareq (the authority, submission.hpp), so a user gets the same words from both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "result.hpp"

namespace shareq {

// The flags' names as the user types them; every Error::field is one of these.
inline constexpr std::string_view kShareFlag = "--share";
inline constexpr std::string_view kPriorityFlag = "--share-priority";
inline constexpr std::string_view kImageFlag = "--image";
inline constexpr std::string_view kKeepAliveFlag = "--keep-alive";
inline constexpr std::string_view kFallbackFlag = "--fallback";

inline constexpr int kMinSharePriority = 0;
inline constexpr int kMaxSharePriority = 99;

// NAME[@sha256:HEX], HEX being 64 lower- or upper-case hex digits (stored lower-case).
struct ImageRef {
  std::string name;
  std::optional<std::string> sha256;  // 64 lower-case hex digits
  [[nodiscard]] std::string to_string() const;
  bool operator==(const ImageRef&) const = default;
};

// A share name: a Slurm account name, 1..64 characters of [A-Za-z0-9_.-]. Returned lower-case.
Result<std::string> parse_share_name(std::string_view text);
// A decimal integer 0..99, nothing else (no sign, no spaces, no suffix).
Result<int> parse_share_priority(std::string_view text);
// A plain image name, 1..128 characters of [A-Za-z0-9_.:+-] not starting with '.', no '/',
// no "..", no whitespace, then an optional "@sha256:" and 64 hex digits.
Result<ImageRef> parse_image_ref(std::string_view text);
// A decimal number of seconds, 0..max_seconds. Client side passes INT64_MAX as max.
Result<int64_t> parse_keep_alive(std::string_view text, int64_t max_seconds);
// yes or no, any case: whether the job may start in its family's Fallback= families.
Result<bool> parse_fallback_choice(std::string_view text);

}  // namespace shareq
