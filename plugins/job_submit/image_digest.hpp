// The image digest a job runs: the pinned one (--image=NAME@sha256:HEX) when no ImageStore is
// configured, else the one the store publishes at or after the job's submission. The store is
// never asked inside a Slurm RPC or scheduler call (a hung store would stall every submission):
// a thread of job_submit's asks it (ctld/image_digests.hpp), and select starts the job once the
// answer is in (a job waits with a reason meanwhile). The digest is the warm-pool key's image
// field and the node fetches exactly it, so a job never runs an image other than the one it was
// matched on.
#pragma once

#include <string>

#include "config.hpp"

namespace shareq::submit {

struct DigestOutcome {
  std::string digest;   // 64 lower-case hex when known at submission (pinned, no store)
  std::string problem;  // "" when ok; else "--image: ...": the job is refused
};

// At submission, without I/O. `image` is the canonical --image value job_submit accepted. With an
// ImageStore the digest is left to the store's answer (digest ""), and the question is queued.
DigestOutcome submission_digest(const Config& config, const std::string& image, time_t now);

// Starts (job_submit's init) and stops (fini) the thread that asks the store. Stopping cancels
// the question in flight (its answer is not recorded; the image is asked about again later) and
// waits for the thread to end, at most 2 s: fini runs under slurmctld's locks. true when the
// thread ended; false when it was left behind to end by itself (its question stuck where a cancel
// cannot reach: a name that does not resolve, a hung mount), which is logged.
void start_asking_store();
bool stop_asking_store();

}  // namespace shareq::submit
