// parse_swf_trace never crashes (with a fixed map); accepted jobs have a run time and GPUs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/swf_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto map =
      shareq::sim::parse_swf_map("Map=user:1 Share=a\nDefault Share=o Partition=p\n", "map");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::sim::parse_swf_trace(text, "t.swf", *map.value);
  if (parsed.value.has_value() == !parsed.errors.empty()) std::abort();
  if (!parsed.value) return 0;
  for (const auto& job : parsed.value->jobs) {
    if (job.run_s <= 0 || job.gpus <= 0 || job.share.empty()) std::abort();
  }
  return 0;
}
