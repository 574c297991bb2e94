#include "tres.hpp"

#include "text.hpp"

namespace shareq::tool {

int64_t tres_count(std::string_view tres, std::string_view name) {
  for (std::string_view item : text::split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || item.substr(0, eq) != name) continue;
    const text::Number number = text::parse_decimal(item.substr(eq + 1), INT64_MAX);
    return number.status == text::NumberStatus::Ok ? static_cast<int64_t>(number.value) : 0;
  }
  return 0;
}

}  // namespace shareq::tool
