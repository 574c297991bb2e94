// parse_slurm_conf never crashes; it gives a cluster exactly when it gives no error, every error
// has a message, and every partition names nodes that exist.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/slurm_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::sim::parse_slurm_conf(text, "slurm.conf");
  if (parsed.value.has_value() == !parsed.errors.empty()) std::abort();
  for (const auto& e : parsed.errors) {
    if (e.message.empty() || e.to_string().empty()) std::abort();
  }
  if (!parsed.value) return 0;
  for (const auto& partition : parsed.value->partitions) {
    for (int node : partition.nodes) {
      if (node < 0 || static_cast<size_t>(node) >= parsed.value->nodes.size()) std::abort();
    }
  }
  return 0;
}
