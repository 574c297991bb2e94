// parse_counter_state (shareq-exporter's counters.state) never crashes; an error names a line;
// whatever it accepts formats to text that parses back and formats to the same text again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "counter_state_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::exporter::parse_counter_state(text);
  if (!parsed) {
    if (!parsed.error().field.starts_with("line ") || parsed.error().message.empty()) {
      std::abort();
    }
    return 0;
  }
  const std::string again = shareq::exporter::format_counter_state(parsed.value());
  const auto reparsed = shareq::exporter::parse_counter_state(again);
  if (!reparsed) std::abort();
  if (shareq::exporter::format_counter_state(reparsed.value()) != again) std::abort();
  return 0;
}
