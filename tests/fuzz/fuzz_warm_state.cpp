// parse_registry never crashes; whatever it accepts formats to text that parses back to the same
// pools and ended directories, and every node is in at most one pool.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "warm/state_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::Result<shareq::warm::WarmPoolRegistry> parsed =
      shareq::warm::parse_registry(text, shareq::warm::WarmSettings{});
  if (!parsed) {
    if (parsed.error().field != "warm pool state" || parsed.error().message.empty()) std::abort();
    return 0;
  }
  std::set<std::string> nodes;
  for (const auto& [id, pool] : parsed.value().pools()) {
    if (id != pool.id || id >= parsed.value().next_id() || !pool.live()) std::abort();
    for (const std::string& node : pool.nodes) {
      if (!nodes.insert(node).second) std::abort();
    }
  }
  const std::string again = shareq::warm::format_registry(parsed.value());
  const auto reparsed = shareq::warm::parse_registry(again, shareq::warm::WarmSettings{});
  if (!reparsed || !(reparsed.value().pools() == parsed.value().pools())) std::abort();
  if (reparsed.value().ended_early() != parsed.value().ended_early()) std::abort();
  if (shareq::warm::format_registry(reparsed.value()) != again) std::abort();
  return 0;
}
