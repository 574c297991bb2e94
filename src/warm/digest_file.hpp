// The digest published beside an image in the store (NAME.sha256), and digest spelling.
// Pure: the image cache reads the file, this parses it (and is fuzzed).
#pragma once

#include <string>
#include <string_view>

#include "result.hpp"

namespace shareq::warm {

// True when `text` is exactly 64 hex digits (lower-case only unless `any_case`).
bool is_sha256_hex(std::string_view text, bool any_case = true);

// The contents of NAME.sha256: one line, either the bare digest ("HEX") or sha256sum's output
// ("HEX  NAME" text mode, "HEX *NAME" binary mode; NAME may carry a directory, only its last
// component is compared), with an optional trailing "\n" or "\r\n". HEX is 64 hex digits of
// either case. Result: the digest in lower case. Errors (field "image", message naming `image`):
// empty file, not 64 hex digits, more than one line, a NAME other than `image`, stray text.
Result<std::string> parse_digest_file(std::string_view contents, std::string_view image);

}  // namespace shareq::warm
