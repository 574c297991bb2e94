// Small text helpers shared by the core's parsers (internal header).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shareq::text {

// A user-supplied value for a message: in double quotes, with '"', '\\' and control or non-ASCII
// bytes escaped (\n, \t, \xNN), cut to about 64 characters with "..." when longer.
std::string quote(std::string_view value);

// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);

// "a, b, c" (or with another separator).
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

// Splits on every `separator`, keeping empty pieces ("a,,b" -> "a", "", "b").
std::vector<std::string_view> split(std::string_view text, char separator);

// True when every character is one of [A-Za-z0-9] or in `extra`.
bool all_of_charset(std::string_view text, std::string_view extra);

// The first character of `text` outside [A-Za-z0-9] and `extra`, as a printable description
// ("\" \"", "\"/\"", "\"\\x01\""); precondition: !all_of_charset(text, extra).
std::string first_bad_char(std::string_view text, std::string_view extra);

// A strict decimal number: digits only, no sign, no spaces. "-5" is Negative; "+5" and "-0" are
// NotNumber (number_message says they are not whole numbers without a sign).
enum class NumberStatus { Ok, Empty, NotNumber, Negative, TooLarge };
struct Number {
  NumberStatus status = NumberStatus::Empty;
  uint64_t value = 0;  // set when status is Ok
};
Number parse_decimal(std::string_view text, uint64_t max);

// The message for a number that did not parse: `"abc" is not an integer; allowed: ALLOWED`,
// `"-0" is not a whole number without a sign; allowed: ALLOWED`.
// Precondition: number.status != Ok.
std::string number_message(std::string_view text, const Number& number, std::string_view allowed);

}  // namespace shareq::text
