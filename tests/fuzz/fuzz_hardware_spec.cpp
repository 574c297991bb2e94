// parse_hardware_spec never crashes; a value it accepts formats to text that parses back equal,
// an error always names Hardware and says what is allowed, and comparing the spec with any facts
// gives one phrase per key that differs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hardware_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::Result<shareq::HardwareSpec> parsed = shareq::parse_hardware_spec(text);
  if (!parsed) {
    if (parsed.error().field != "Hardware" ||
        parsed.error().message.find("allowed: ") == std::string::npos) {
      std::abort();
    }
    return 0;
  }
  const shareq::HardwareSpec& spec = parsed.value();
  const std::string formatted = shareq::format_hardware_spec(spec);
  if (spec.empty() != formatted.empty()) std::abort();
  if (!spec.empty()) {
    const shareq::Result<shareq::HardwareSpec> again = shareq::parse_hardware_spec(formatted);
    if (!again || !(again.value() == spec)) std::abort();
  }
  const shareq::HardwareFacts facts{spec.gpus.value_or(0) + 1, spec.numa.value_or(0),
                                    spec.cores.value_or(0)};
  const size_t expected = spec.gpus ? 1 : 0;
  if (shareq::hardware_mismatches(facts, spec, "f").size() != expected) std::abort();
  return 0;
}
