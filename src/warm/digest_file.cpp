#include "warm/digest_file.hpp"

#include "text.hpp"

namespace shareq::warm {
namespace {

bool is_hex(char c, bool any_case) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (any_case && c >= 'A' && c <= 'F');
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Error bad(std::string_view image, const std::string& what) {
  return Error{"image", "image " + std::string(image) + ": published digest (" +
                            std::string(image) + ".sha256) " + what};
}

}  // namespace

bool is_sha256_hex(std::string_view text, bool any_case) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!is_hex(c, any_case)) return false;
  }
  return true;
}

Result<std::string> parse_digest_file(std::string_view contents, std::string_view image) {
  if (contents.size() >= 2 && contents.substr(contents.size() - 2) == "\r\n") {
    contents.remove_suffix(2);
  } else if (!contents.empty() && contents.back() == '\n') {
    contents.remove_suffix(1);
  }
  if (contents.empty()) return bad(image, "is empty");
  if (contents.find('\n') != std::string_view::npos) return bad(image, "has more than one line");
  const std::string_view hex = contents.substr(0, 64);
  if (!is_sha256_hex(hex)) {
    return bad(image, "does not start with 64 hex digits: " + text::quote(contents));
  }
  std::string_view rest = contents.substr(64);
  if (rest.empty()) return lower(hex);
  if (rest.substr(0, 2) == "  " || rest.substr(0, 2) == " *") {
    rest.remove_prefix(2);
  } else {
    return bad(image, "has stray text after the digest: " + text::quote(rest));
  }
  const size_t slash = rest.rfind('/');
  const std::string_view named = slash == std::string_view::npos ? rest : rest.substr(slash + 1);
  if (named != image) {
    return bad(image, "is for " + text::quote(rest) + ", not for " + text::quote(image));
  }
  return lower(hex);
}

}  // namespace shareq::warm
