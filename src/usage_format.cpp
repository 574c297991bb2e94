#include "usage_format.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace shareq {
namespace {

constexpr std::string_view kHeader = "# shareq decayed usage: SHARE FAMILY UNIT_SECONDS";
constexpr std::string_view kVersion = "version=2";
// Version 1 had no "end" line; such a file (from an earlier shareq) is still read.
constexpr std::string_view kVersionWithoutEnd = "version=1";
constexpr std::string_view kLastRan = "last_ran=";
constexpr std::string_view kEnd = "end";

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Error bad(std::string_view label, int line, const std::string& message) {
  return Error{std::string(label) + ":" + std::to_string(line), message};
}

}  // namespace

std::string format_usage(const UsageFile& file) {
  std::string out = std::string(kHeader) + "\n" + std::string(kVersion) + "\n" +
                    std::string(kLastRan) + std::to_string(file.last_ran) + "\n";
  char value[64];
  for (const UsageRecord& r : file.records) {
    std::snprintf(value, sizeof value, "%.17g", r.value);
    out += r.share + " " + r.family + " " + value + "\n";
  }
  return out + std::string(kEnd) + "\n";
}

Result<UsageFile> parse_usage(std::string_view text, std::string_view label) {
  UsageFile file;
  int line_no = 0;
  bool have_version = false;
  bool needs_end = false;
  bool have_end = false;
  bool have_last_ran = false;
  size_t pos = 0;
  if (text.empty()) {
    return bad(label, 0, "empty file");
  }
  if (text.back() != '\n') {
    return bad(label, 0, "truncated (no newline at the end)");
  }
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (have_end) return bad(label, line_no, "text after the \"end\" line");
    if (!have_version) {
      if (line != kVersion && line != kVersionWithoutEnd) {
        return bad(label, line_no, R"(expected "version=2" (or an earlier shareq's "version=1"))");
      }
      have_version = true;
      needs_end = line == kVersion;
      continue;
    }
    if (!have_last_ran) {
      if (!line.starts_with(kLastRan)) return bad(label, line_no, "expected \"last_ran=SECONDS\"");
      const std::string_view v = line.substr(kLastRan.size());
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), file.last_ran);
      if (ec != std::errc() || end != v.data() + v.size() || v.empty() || file.last_ran < 0) {
        return bad(label, line_no, "last_ran is not a number of seconds");
      }
      have_last_ran = true;
      continue;
    }
    if (needs_end && line == kEnd) {
      have_end = true;
      continue;
    }
    const auto w = words(line);
    if (w.size() != 3) return bad(label, line_no, "expected \"SHARE FAMILY VALUE\"");
    if (!valid_name(w[0]) || !valid_name(w[1]))
      return bad(label, line_no, "bad share or family name");
    UsageRecord r{std::string(w[0]), std::string(w[1]), 0};
    const std::string number(w[2]);
    char* end = nullptr;
    errno = 0;
    r.value = std::strtod(number.c_str(), &end);
    if (errno != 0 || end != number.c_str() + number.size() || !std::isfinite(r.value) ||
        r.value < 0) {
      return bad(label, line_no, "usage is not a finite number >= 0");
    }
    file.records.push_back(std::move(r));
  }
  if (!have_version || !have_last_ran)
    return bad(label, line_no, "truncated (no version or last_ran)");
  // A file cut at a line boundary still ends with a newline: only the "end" line tells.
  if (needs_end && !have_end) return bad(label, line_no, "truncated (no \"end\" line)");
  return file;
}

}  // namespace shareq
