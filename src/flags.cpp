// The submission flags' value parsers (--share, --share-priority, --image, --keep-alive).
#include <algorithm>
#include <limits>

#include "config.hpp"
#include "flags.hpp"
#include "text.hpp"

namespace shareq {
namespace {

constexpr std::string_view kShareRule =
    "a share is a Slurm account name, 1..64 characters of [A-Za-z0-9_.-]";
constexpr std::string_view kImageRule =
    "an image is a plain name [A-Za-z0-9_.:+-], optionally @sha256:<64 hex digits>";
constexpr std::string_view kImageNameChars = "_.:+-";
constexpr size_t kMaxShareName = 64;
constexpr size_t kMaxImageName = 128;
constexpr size_t kDigestLength = 64;

Error flag_error(std::string_view flag, std::string message) {
  return Error{std::string(flag), std::move(message)};
}

Error image_error(std::string_view text, std::string_view problem) {
  return flag_error(
      kImageFlag, text::quote(text) + " " + std::string(problem) + "; " + std::string(kImageRule));
}

// The problem with an image name, or "" when it is a valid name.
std::string image_name_problem(std::string_view name) {
  if (name.empty()) {
    return "has no name before \"@\"";
  }
  if (!text::all_of_charset(name, kImageNameChars)) {
    return "contains " + text::first_bad_char(name, kImageNameChars);
  }
  if (name.front() == '.') {
    return "starts with \".\"";
  }
  if (name.find("..") != std::string_view::npos) {
    return "contains \"..\"";
  }
  if (name.size() > kMaxImageName) {
    return "is " + std::to_string(name.size()) + " characters long, over 128";
  }
  return "";
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The problem with the part after '@', or "" when it is "sha256:" and 64 hex digits.
std::string digest_problem(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (!digest.starts_with(kPrefix)) {
    // The OCI image spec (descriptor.md, "Digests") writes the algorithm in lower case
    // ([a-z0-9]+ components), so "SHA256:" names no algorithm there.
    if (text::iequals(digest.substr(0, std::min(digest.size(), kPrefix.size())), kPrefix)) {
      return "has a digest algorithm " + text::quote(digest.substr(0, kPrefix.size() - 1)) +
             "; the digest algorithm must be lower case \"sha256\" (OCI image spec)";
    }
    return "has a digest that does not start with \"sha256:\"";
  }
  const std::string_view hex = digest.substr(kPrefix.size());
  for (char c : hex) {
    if (!is_hex(c)) {
      return "has a digest with " + text::quote(std::string(1, c)) + ", not hex";
    }
  }
  if (hex.size() != kDigestLength) {
    return "has a digest of " + std::to_string(hex.size()) + " hex digits, not 64";
  }
  return "";
}

}  // namespace

std::string ImageRef::to_string() const { return sha256 ? name + "@sha256:" + *sha256 : name; }

Result<std::string> parse_share_name(std::string_view text) {
  if (text.empty()) {
    return flag_error(kShareFlag, "is empty; " + std::string(kShareRule));
  }
  if (!text::all_of_charset(text, "_.-")) {
    return flag_error(kShareFlag, text::quote(text) + " contains " +
                                      text::first_bad_char(text, "_.-") + "; " +
                                      std::string(kShareRule));
  }
  if (text.size() > kMaxShareName) {
    return flag_error(kShareFlag, text::quote(text) + " is " + std::to_string(text.size()) +
                                      " characters long; " + std::string(kShareRule));
  }
  return to_lower(text);
}

Result<int> parse_share_priority(std::string_view text) {
  const text::Number number = text::parse_decimal(text, kMaxSharePriority);
  if (number.status != text::NumberStatus::Ok) {
    return flag_error(kPriorityFlag, text::number_message(text, number, "0..99"));
  }
  return static_cast<int>(number.value);
}

Result<ImageRef> parse_image_ref(std::string_view text) {
  if (text.empty()) {
    return flag_error(kImageFlag, "is empty; " + std::string(kImageRule));
  }
  const size_t at = text.find('@');
  const std::string_view name = text.substr(0, at);
  if (std::string problem = image_name_problem(name); !problem.empty()) {
    return image_error(text, problem);
  }
  ImageRef image{std::string(name), std::nullopt};
  if (at == std::string_view::npos) {
    return image;
  }
  const std::string_view digest = text.substr(at + 1);
  if (std::string problem = digest_problem(digest); !problem.empty()) {
    return image_error(text, problem);
  }
  image.sha256 = to_lower(digest.substr(7));
  return image;
}

Result<int64_t> parse_keep_alive(std::string_view text, int64_t max_seconds) {
  const int64_t max = max_seconds < 0 ? 0 : max_seconds;
  // Client side there is no MaxKeepAlive to quote (max is INT64_MAX): say what the form is.
  const std::string allowed = max == std::numeric_limits<int64_t>::max()
                                  ? "a whole number of seconds, 0 or more, up to the cluster's "
                                    "MaxKeepAlive"
                                  : "0.." + std::to_string(max) + " seconds";
  const text::Number number =
      text::parse_decimal(text, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  if (number.status != text::NumberStatus::Ok) {
    return flag_error(kKeepAliveFlag, text::number_message(text, number, allowed));
  }
  const auto seconds = static_cast<int64_t>(number.value);
  if (seconds > max) {
    return flag_error(kKeepAliveFlag, std::to_string(seconds) + " is above MaxKeepAlive=" +
                                          std::to_string(max) + "; allowed: " + allowed);
  }
  return seconds;
}

Result<bool> parse_fallback_choice(std::string_view text) {
  if (text::iequals(text, "yes")) return true;
  if (text::iequals(text, "no")) return false;
  return flag_error(kFallbackFlag, text::quote(text) + " is not a choice; allowed: yes, no");
}

}  // namespace shareq
