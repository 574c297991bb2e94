// parse_usage never crashes; whatever it accepts has valid names, finite values >= 0 and a
// last_ran >= 0, and formats to text that parses back to the same file (values exactly) and
// formats to the same text again.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "usage_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::parse_usage(text, "fuzz");
  if (!parsed) {
    if (!parsed.error().field.starts_with("fuzz:") || parsed.error().message.empty()) {
      std::abort();
    }
    return 0;
  }
  const shareq::UsageFile& file = parsed.value();
  if (file.last_ran < 0) std::abort();
  for (const shareq::UsageRecord& r : file.records) {
    if (r.share.empty() || r.family.empty() || !std::isfinite(r.value) || r.value < 0) {
      std::abort();
    }
  }
  const std::string again = shareq::format_usage(file);
  const auto reparsed = shareq::parse_usage(again, "fuzz");
  if (!reparsed || !(reparsed.value() == file)) std::abort();
  if (shareq::format_usage(reparsed.value()) != again) std::abort();
  return 0;
}
