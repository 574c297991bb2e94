// The node side's texts (warm/node_files.hpp) never crash the parsers. A warm directory's state
// that parses has a one-word kind and an empty or valid digest, and formats to text that parses
// back to the same; a prolog outcome formats to text that parses back to a fixed point (a '\r'
// in a value becomes a space once); the warm names of SHAREQ_WARM_ENDED are all valid and split
// back the same once joined; PID 1's start read from /proc/1/stat is digits or nothing, and a
// boot is the same boot as itself and as its boot id alone.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "text.hpp"
#include "warm/digest_file.hpp"
#include "warm/node_files.hpp"
#include "warm/pool.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace warm = shareq::warm;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto state = warm::parse_warm_dir_state(text)) {
    if (state->kind.empty() || state->kind.find_first_of(" \t\n\r\v\f") != std::string::npos) {
      std::abort();
    }
    if (!state->digest.empty() && !warm::is_sha256_hex(state->digest, false)) std::abort();
    if (warm::parse_warm_dir_state(warm::format_warm_dir_state(*state)) != state) std::abort();
  }

  const warm::PreparedJob prepared = warm::parse_prepared(text);
  for (const std::string* v : {&prepared.image_path, &prepared.digest, &prepared.warm_dir,
                               &prepared.error, &prepared.boot}) {
    if (v->find('\n') != std::string::npos) std::abort();
  }
  const std::string once = warm::format_prepared(prepared);
  const warm::PreparedJob back = warm::parse_prepared(once);
  if (warm::format_prepared(back) != once ||
      warm::parse_prepared(warm::format_prepared(back)) != back) {
    std::abort();
  }

  const std::string ticks = warm::init_start_ticks(text);
  if (ticks.find_first_not_of("0123456789") != std::string::npos) std::abort();
  if (!warm::same_boot(text, text)) std::abort();
  const std::string boot = warm::node_boot(text, ticks);
  const std::string_view boot_id = text.substr(0, text.find('+'));
  if (!boot_id.empty() && !warm::same_boot(boot_id, boot)) std::abort();

  const auto names = warm::split_warm_names(text);
  for (const std::string& name : names) {
    if (!warm::is_node_warm_name(name)) std::abort();
  }
  if (warm::split_warm_names(shareq::text::join(names, ",")) != names) std::abort();
  return 0;
}
