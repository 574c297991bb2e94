// parse_digest_file never crashes; an accepted digest is 64 lower-case hex digits taken from the
// start of the file, and a bare digest always parses back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "warm/digest_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::Result<std::string> digest = shareq::warm::parse_digest_file(text, "llama");
  if (!digest) {
    if (digest.error().field != "image" ||
        digest.error().message.find("image llama") == std::string::npos) {
      std::abort();
    }
    return 0;
  }
  const std::string& hex = digest.value();
  if (!shareq::warm::is_sha256_hex(hex, false) || text.size() < 64) std::abort();
  for (size_t i = 0; i < 64; ++i) {
    const char c =
        text[i] >= 'A' && text[i] <= 'F' ? static_cast<char>(text[i] - 'A' + 'a') : text[i];
    if (c != hex[i]) std::abort();
  }
  const auto bare = shareq::warm::parse_digest_file(hex + "\n", "other");
  if (!bare || bare.value() != hex) std::abort();
  return 0;
}
