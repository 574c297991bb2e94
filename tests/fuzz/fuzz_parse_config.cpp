// parse_config never crashes; a config it accepts formats to text that parses back equivalent,
// and formatting is then a fixed point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::ParseResult parsed = shareq::parse_config(text, "fuzz.conf");
  if (!parsed.config) {
    if (parsed.errors.empty()) std::abort();
    for (const shareq::ConfigError& error : parsed.errors) {
      if (error.message.empty() || error.to_string().empty()) std::abort();
    }
    return 0;
  }
  if (!parsed.errors.empty()) std::abort();
  const std::string formatted = shareq::format_config(*parsed.config);
  const shareq::ParseResult again = shareq::parse_config(formatted, "formatted.conf");
  if (!again.config || !shareq::equivalent(*parsed.config, *again.config)) std::abort();
  if (shareq::format_config(*again.config) != formatted) std::abort();
  return 0;
}
