// decode_submission never crashes and accepts exactly encode_submission's output:
// encode(decode(text)) == text whenever decoding succeeds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "job_tag.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::Result<shareq::Submission> decoded = shareq::decode_submission(text);
  if (!decoded) {
    if (decoded.error().field != "tag") std::abort();
    return 0;
  }
  if (shareq::encode_submission(decoded.value()) != text) std::abort();
  return 0;
}
