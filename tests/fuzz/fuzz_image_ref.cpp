// parse_image_ref never crashes; an accepted image prints to text that parses back equal and
// keeps the documented rules.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "flags.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const shareq::Result<shareq::ImageRef> image = shareq::parse_image_ref(text);
  if (!image) {
    if (image.error().field != shareq::kImageFlag) std::abort();
    return 0;
  }
  const shareq::ImageRef& ref = image.value();
  if (ref.name.empty() || ref.name.size() > 128 || ref.name.front() == '.' ||
      ref.name.find("..") != std::string::npos || ref.name.find('/') != std::string::npos) {
    std::abort();
  }
  if (ref.sha256 && ref.sha256->size() != 64) std::abort();
  const shareq::Result<shareq::ImageRef> again = shareq::parse_image_ref(ref.to_string());
  if (!again || !(again.value() == ref)) std::abort();
  return 0;
}
