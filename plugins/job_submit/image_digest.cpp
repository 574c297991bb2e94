// Not slurm_xlator.h: its `#define error slurm_error` would rename Result::error().
#include "image_digest.hpp"

#include "imagecache/store.hpp"
#include "submission.hpp"

namespace shareq::submit {

DigestOutcome resolve_image_digest(const Config& config, const std::string& image) {
  DigestOutcome out;
  const std::string flag(kImageFlag);
  Result<ImageRef> ref = parse_image_ref(image);
  if (!ref) {
    out.problem = ref.error().to_string();
    return out;
  }
  if (config.image_store.empty()) {
    if (ref.value().sha256) {
      out.digest = *ref.value().sha256;
    } else {
      out.problem = flag + ": image " + ref.value().name + ": no ImageStore is configured";
    }
    return out;
  }
  Result<imagecache::ImageStore> store = imagecache::ImageStore::parse(config.image_store);
  if (!store) {
    out.problem = flag + ": ImageStore: " + store.error().message;
    return out;
  }
  imagecache::TransferLimits limits;
  limits.connect_timeout_s = 3;
  limits.stall_timeout_s = 5;
  limits.transfer_timeout_s = 10;
  Result<std::string> published = store.value().published_digest(ref.value().name, limits);
  if (!published) {
    out.problem = flag + ": " + published.error().message;
    return out;
  }
  if (ref.value().sha256 && *ref.value().sha256 != published.value()) {
    out.problem = flag + ": image " + ref.value().name + ": pinned digest sha256:" +
                *ref.value().sha256 + " does not match the store's sha256:" + published.value();
    return out;
  }
  out.digest = published.value();
  return out;
}

}  // namespace shareq::submit
