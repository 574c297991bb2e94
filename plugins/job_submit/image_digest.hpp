// The image digest a job runs, fixed at submission: the pinned one (--image=NAME@sha256:HEX), else
// the store's published digest now. It is the warm-pool key's image field, and the node fetches
// exactly that digest, so a job never runs an image other than the one it was matched on.
#pragma once

#include <string>

#include "config.hpp"

namespace shareq::submit {

struct DigestOutcome {
  std::string digest;  // 64 lower-case hex when ok
  std::string problem;  // "" when ok; else "--image: image NAME: cause"
};

// `image` is the canonical --image value job_submit accepted. Reads NAME.sha256 from the store
// (short timeouts: this runs in slurmctld's RPC thread).
DigestOutcome resolve_image_digest(const Config& config, const std::string& image);

}  // namespace shareq::submit
