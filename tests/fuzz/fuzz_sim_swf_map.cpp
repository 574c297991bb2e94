// parse_swf_map never crashes; a map it accepts has a Default with a share and a partition, and
// every lookup gives a share and a partition.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/swf_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::sim::parse_swf_map(text, "map");
  if (parsed.value.has_value() == !parsed.errors.empty()) std::abort();
  for (const auto& e : parsed.errors) {
    if (e.message.empty()) std::abort();
  }
  if (!parsed.value) return 0;
  for (const auto& rule : parsed.value->rules) {
    const auto target = parsed.value->lookup(rule.id, rule.id, rule.id);
    if (target.share.empty() || target.partition.empty()) std::abort();
  }
  return 0;
}
