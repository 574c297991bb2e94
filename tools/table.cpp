#include "table.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string_view>

#include "policy/policy.hpp"

namespace shareq::tool {
namespace {

// Digits, with at most one decimal point between digits ("12", "2.5"), or UNLIMITED.
bool numeric(const std::string& text) {
  if (text == "UNLIMITED") return true;
  const size_t dot = text.find('.');
  const auto digits = [](std::string_view part) {
    return !part.empty() &&
           std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos) return digits(text);
  return digits(std::string_view(text).substr(0, dot)) &&
         digits(std::string_view(text).substr(dot + 1));
}

// A column of numbers is right-aligned, header included; "-" (nothing) fits either kind.
bool right_aligned(const std::vector<std::vector<std::string>>& rows, size_t column) {
  bool any = false;
  for (size_t r = 1; r < rows.size(); ++r) {
    const std::string& text = rows[r][column];
    if (text == "-") continue;
    if (!numeric(text)) return false;
    any = true;
  }
  return any;
}

}  // namespace

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::add(std::vector<std::string> row) {
  row.resize(std::max(row.size(), rows_.front().size()));
  rows_.push_back(std::move(row));
}

std::string Table::render() const {
  std::vector<size_t> width(rows_.front().size(), 0);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::vector<bool> right(width.size());
  for (size_t c = 0; c < width.size(); ++c) right[c] = right_aligned(rows_, c);
  std::string out;
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& text = rows_[r][c];
      const std::string pad(width[c] - text.size(), ' ');
      if (c > 0) line += "  ";
      line += right[c] ? pad + text : text + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string cell(int64_t amount) {
  return amount == policy::kUnlimited ? "UNLIMITED" : std::to_string(amount);
}

std::string amount_text(int64_t amount, Unit unit) {
  if (amount == policy::kUnlimited) return "UNLIMITED";
  const char* noun = unit == Unit::Gpu ? "GPU" : "node";
  return std::to_string(amount) + " " + noun + (amount == 1 ? "" : "s");
}

std::string duration_text(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  char buf[48];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(seconds));
  } else if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(seconds / 60),
                  static_cast<long long>(seconds % 60));
  } else if (seconds < 86400) {
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds % 3600 / 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldd %lldh", static_cast<long long>(seconds / 86400),
                  static_cast<long long>(seconds % 86400 / 3600));
  }
  return buf;
}

std::string local_time_text(int64_t epoch_seconds) {
  const time_t t = epoch_seconds;
  struct tm tm {};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::optional<int64_t> parse_local_time(std::string_view iso) {
  struct tm tm {};
  const std::string text(iso);
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  tm.tm_isdst = -1;  // let mktime decide, as localtime_r did when the plugin wrote it
  const time_t t = mktime(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(t);
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_amount(int64_t amount) {
  return amount == policy::kUnlimited ? "null" : std::to_string(amount);
}

}  // namespace shareq::tool
