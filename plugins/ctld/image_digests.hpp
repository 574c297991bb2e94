// The image store's published digests as slurmctld knows them (warm/digest_book.hpp), shared by
// job_submit (asks when a job is submitted, and runs the thread that asks the store) and select
// (a job with --image starts only once the digest it runs is known). Nothing here does I/O: the
// scheduler and the RPC threads only read the book and queue questions; the store is asked by
// job_submit's thread, outside every Slurm lock.
#pragma once

#include <ctime>
#include <optional>
#include <string>

#include "ctld_api.hpp"
#include "flags.hpp"
#include "warm/digest_book.hpp"

namespace shareq::ctld {

// What a job submitted at `submitted_at` with `image` runs now; queues a question to the store
// when the book has no answer as new as the job (or a failed one is due again). Never blocks on
// I/O. Thread-safe.
SHAREQ_CTLD_API warm::DigestVerdict image_digest_for(const ImageRef& image, time_t submitted_at,
                                                     time_t now);

// For the thread that asks the store: the next image to ask about, waiting until there is one;
// std::nullopt once image_questions_stop() was called.
SHAREQ_CTLD_API std::optional<std::string> next_image_question();
// Records the store's answer (and wakes the scheduler, so a job waiting on it starts).
SHAREQ_CTLD_API void image_answered(const std::string& name, const warm::DigestAnswer& answer);
// The question about `name` got no answer because it was cancelled (job_submit's fini): nothing
// is recorded, and the image is asked about again when a job next needs it.
SHAREQ_CTLD_API void image_not_asked(const std::string& name);

// Starts accepting questions again (job_submit's init), and makes next_image_question() return
// std::nullopt (job_submit's fini, before it joins its thread).
SHAREQ_CTLD_API void image_questions_start();
SHAREQ_CTLD_API void image_questions_stop();

}  // namespace shareq::ctld
