#include "text.hpp"

#include <algorithm>
#include <cstdio>

#include "config.hpp"

namespace shareq::text {
namespace {

constexpr size_t kQuoteLimit = 64;

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

void append_escaped(std::string& out, char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (c == '"' || c == '\\') {
    out += '\\';
    out += c;
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\r') {
    out += "\\r";
  } else if (byte < 0x20 || byte >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", byte);
    out += buf;
  } else {
    out += c;
  }
}

}  // namespace

std::string quote(std::string_view value) {
  std::string out = "\"";
  const size_t shown = value.size() > kQuoteLimit ? kQuoteLimit : value.size();
  for (size_t i = 0; i < shown; ++i) {
    append_escaped(out, value[i]);
  }
  if (shown < value.size()) {
    out += "...";
  }
  out += '"';
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += items[i];
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool all_of_charset(std::string_view text, std::string_view extra) {
  return std::ranges::all_of(
      text, [&](char c) { return is_alnum(c) || extra.find(c) != std::string_view::npos; });
}

std::string first_bad_char(std::string_view text, std::string_view extra) {
  for (char c : text) {
    if (!is_alnum(c) && extra.find(c) == std::string_view::npos) {
      return quote(std::string(1, c));
    }
  }
  return "\"\"";
}

Number parse_decimal(std::string_view text, uint64_t max) {
  if (text.empty()) {
    return {NumberStatus::Empty, 0};
  }
  const bool negative = text.size() > 1 && text[0] == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  uint64_t value = 0;
  bool too_large = false;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return {NumberStatus::NotNumber, 0};
    }
    const auto digit = static_cast<uint64_t>(c - '0');
    if (digit > max || value > (max - digit) / 10) {
      too_large = true;
    }
    if (!too_large) {
      value = value * 10 + digit;
    }
  }
  if (negative) {
    // "-0" is no negative number: it is refused like "+0", as a number written with a sign.
    return {value == 0 && !too_large ? NumberStatus::NotNumber : NumberStatus::Negative, 0};
  }
  if (too_large) {
    return {NumberStatus::TooLarge, 0};
  }
  return {NumberStatus::Ok, value};
}

std::string number_message(std::string_view text, const Number& number, std::string_view allowed) {
  std::string what;
  switch (number.status) {
    case NumberStatus::Empty:
      what = "is empty";
      break;
    case NumberStatus::NotNumber:
      // "+5", "-0", "+0m": digits after a sign, which no number here takes.
      what = quote(text) + (text.size() > 1 && (text[0] == '+' || text[0] == '-') &&
                                    text[1] >= '0' && text[1] <= '9'
                                ? " is not a whole number without a sign"
                                : " is not an integer");
      break;
    case NumberStatus::Negative:
      what = quote(text) + " is negative";
      break;
    case NumberStatus::TooLarge:
    case NumberStatus::Ok:
      // Digits (and a unit suffix) only: shown bare unless too long.
      what = (text.size() <= kQuoteLimit ? std::string(text) : quote(text)) + " is out of range";
      break;
  }
  return what + "; allowed: " + std::string(allowed);
}

}  // namespace shareq::text

namespace shareq {

std::string to_lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

}  // namespace shareq
