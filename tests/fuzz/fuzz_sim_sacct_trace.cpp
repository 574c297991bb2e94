// parse_sacct_trace never crashes; a trace it accepts has jobs with a share, partitions, a run
// time and GPUs; every error has a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/sacct_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::sim::parse_sacct_trace(text, "trace.sacct");
  if (parsed.value.has_value() == !parsed.errors.empty()) std::abort();
  for (const auto& e : parsed.errors) {
    if (e.message.empty()) std::abort();
  }
  if (!parsed.value) return 0;
  for (const auto& job : parsed.value->jobs) {
    if (job.share.empty() || job.partitions.empty() || job.run_s <= 0 || job.gpus <= 0)
      std::abort();
  }
  return 0;
}
