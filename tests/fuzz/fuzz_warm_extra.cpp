// parse_node_extra never crashes; a text without "shareq:" (or the end request) is no pool;
// whatever it accepts has exactly one of until, until_local and job, and formats to a line that
// parses back to the same fields (and formats to the same line again).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "warm/extra_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace warm = shareq::warm;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = warm::parse_node_extra(text);
  if (!parsed) {
    if (warm::is_shareq_extra(text) && text != warm::kEndPoolRequest) std::abort();
    return 0;
  }
  if (!warm::is_shareq_extra(text)) std::abort();
  if (!*parsed) {
    if (parsed->error().field != "Extra" || parsed->error().message.empty()) std::abort();
    return 0;
  }
  const warm::NodeExtra& extra = parsed->value();
  const int times = int{extra.until.has_value()} + int{extra.until_local.has_value()} +
                    int{extra.job.has_value()};
  if (times != 1 || !warm::pool_number(extra.pool) || extra.status.empty()) std::abort();
  if (extra.until && *extra.until < 0) std::abort();
  const std::string again = warm::format_node_extra(extra);
  const auto reparsed = warm::parse_node_extra(again);
  if (!reparsed || !*reparsed || !(reparsed->value() == extra)) std::abort();
  if (warm::format_node_extra(reparsed->value()) != again) std::abort();
  return 0;
}
