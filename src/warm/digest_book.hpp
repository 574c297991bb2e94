// What slurmctld knows of the image store's published digests, and which digest a pending job
// runs. Pure: the controller asks the store on a thread of its own, outside Slurm's locks, and
// records each answer here; the scheduler only reads.
//
// A job runs the digest the store published at or after the job's submission: an answer counts
// for a job only when its question was asked at or after the job was submitted. So pushing a new
// image and submitting never runs the image it replaced, and a job never waits on the network
// inside slurmctld: until an answer it can use has come, it waits with a reason that says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "flags.hpp"

namespace shareq::warm {

// One answer of the store about one image.
struct DigestAnswer {
  int64_t asked_at = 0;     // when the question was sent (epoch seconds)
  int64_t answered_at = 0;  // when the answer (or the failure) came
  std::string digest;       // 64 lower-case hex digits when the store published one
  std::string problem;      // else why not, naming the image (HTTP status, timeout, no such image)
};

// The digest a job runs, or why it waits.
struct DigestVerdict {
  std::optional<std::string> digest;  // known: the job may start with it
  std::string wait_reason;            // else words for squeue, without the "shareq: " prefix
  bool ask = false;                   // the caller should ask the store now (then asking())
};

struct DigestBookLimits {
  int64_t retry_after_s = 10;  // a failed answer, or a pin the store does not publish, is
                               // asked again this long after it came
  size_t max_images = 4096;    // beyond this, the least recently used images are forgotten
};

class DigestBook {
 public:
  explicit DigestBook(DigestBookLimits limits = {}) : limits_(limits) {}

  // What a job submitted at `submitted_at` with `image` runs now. Counts as a use of the image.
  DigestVerdict verdict(const ImageRef& image, int64_t submitted_at, int64_t now);

  // The store is being asked about `name` since `now` (one question per image at a time).
  void asking(const std::string& name, int64_t now);
  // The question about `name` was dropped unasked (it is asked again when a job next needs it).
  void not_asked(const std::string& name);
  // The store's answer to the question about `name`; ends the question.
  void answered(const std::string& name, DigestAnswer answer);

  [[nodiscard]] size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::optional<int64_t> asking_since;
    std::optional<DigestAnswer> latest;
    int64_t last_used = 0;
  };

  Entry& entry(const std::string& name, int64_t now);
  [[nodiscard]] bool retry_due(const Entry& e, int64_t now) const;

  DigestBookLimits limits_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace shareq::warm
