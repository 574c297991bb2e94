// parse_claims never crashes; whatever it accepts has one claim per job, each with victims and a
// priority of 0-99, and formats to text that parses back to the same claims.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "policy/claims_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = shareq::policy::parse_claims(text);
  if (!parsed) {
    if (parsed.error().field != "reclaim claims" || parsed.error().message.empty()) std::abort();
    return 0;
  }
  std::set<shareq::policy::JobId> jobs;
  for (const auto& claim : parsed.value()) {
    if (!jobs.insert(claim.job).second) std::abort();
    if (claim.victims.empty() || claim.priority < 0 || claim.priority > 99) std::abort();
    if (claim.amount < 1 || claim.since < 0) std::abort();
  }
  const std::string again = shareq::policy::format_claims(parsed.value());
  const auto reparsed = shareq::policy::parse_claims(again);
  if (!reparsed || reparsed.value() != parsed.value()) std::abort();
  return 0;
}
