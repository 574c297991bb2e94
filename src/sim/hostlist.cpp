#include "sim/hostlist.hpp"

#include <cstdio>

#include "text.hpp"

namespace shareq::sim {
namespace {

using Names = std::vector<std::string>;

Error bad(std::string message) { return Error{"", std::move(message)}; }

Error too_many(std::string_view list, size_t max_names) {
  return bad(text::quote(list) + " has more than " + std::to_string(max_names) + " names");
}

// The top-level comma-separated items (commas inside brackets do not split).
Result<std::vector<std::string_view>> split_items(std::string_view list) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return bad("\"]\" without \"[\" in " + text::quote(list));
    if (c == ',' && depth == 0) {
      if (i == begin) return bad("empty host name in " + text::quote(list));
      items.push_back(list.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  if (depth != 0) return bad("\"[\" without \"]\" in " + text::quote(list));
  return items;
}

// "01-04" or "7" -> the numbers as text, zero-padded to the start's width.
Result<Names> expand_range(std::string_view range, std::string_view whole, size_t max_names) {
  const size_t dash = range.find('-');
  const std::string_view first = range.substr(0, dash);
  const std::string_view last = dash == std::string_view::npos ? first : range.substr(dash + 1);
  const auto low = text::parse_decimal(first, 999'999'999);
  const auto high = text::parse_decimal(last, 999'999'999);
  if (low.status != text::NumberStatus::Ok || high.status != text::NumberStatus::Ok) {
    return bad("range " + text::quote(range) + " in " + text::quote(whole) +
               " is not N or N-M with numbers N <= M");
  }
  if (high.value < low.value) {
    return bad("range " + text::quote(range) + " in " + text::quote(whole) +
               " ends below its start");
  }
  if (high.value - low.value >= max_names) {
    return too_many(whole, max_names);
  }
  Names out;
  const int width = first.size() > 1 && first[0] == '0' ? static_cast<int>(first.size()) : 0;
  for (uint64_t n = low.value; n <= high.value; ++n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llu", width, static_cast<unsigned long long>(n));
    out.emplace_back(buf);
  }
  return out;
}

Result<Names> expand_item(std::string_view item, std::string_view whole, size_t max_names);

// prefix + each of the bracket's numbers + the expansion of the rest.
Result<Names> expand_bracket(std::string_view item, size_t open, std::string_view whole,
                             size_t max_names) {
  const size_t close = item.find(']', open);
  Names numbers;
  for (std::string_view range : text::split(item.substr(open + 1, close - open - 1), ',')) {
    auto expanded = expand_range(range, whole, max_names);
    if (!expanded) return expanded.error();
    for (auto& n : expanded.value()) numbers.push_back(n);
    if (numbers.size() > max_names) {
      return too_many(whole, max_names);
    }
  }
  auto rest = expand_item(item.substr(close + 1), whole, max_names);
  if (!rest) return rest.error();
  if (numbers.size() * rest.value().size() > max_names) {
    return too_many(whole, max_names);
  }
  Names out;
  const std::string prefix(item.substr(0, open));
  for (const auto& number : numbers) {
    for (const auto& tail : rest.value()) out.push_back(prefix + number + tail);
  }
  return out;
}

Result<Names> expand_item(std::string_view item, std::string_view whole, size_t max_names) {
  const size_t open = item.find('[');
  if (open == std::string_view::npos) return Names{std::string(item)};
  if (item.find('[', open + 1) < item.find(']', open)) {
    return bad("nested \"[\" in " + text::quote(whole));
  }
  return expand_bracket(item, open, whole, max_names);
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view list, size_t max_names) {
  auto items = split_items(list);
  if (!items) return items.error();
  Names out;
  for (std::string_view item : items.value()) {
    auto names = expand_item(item, list, max_names);
    if (!names) return names.error();
    if (out.size() + names.value().size() > max_names) {
      return too_many(list, max_names);
    }
    for (auto& name : names.value()) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace shareq::sim
