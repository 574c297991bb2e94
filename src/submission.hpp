// The submission flags (--share, --share-priority, --image, --keep-alive): parsing each value,
// and the controller-side validation of a whole job against shareq.conf.
//
// The same parsers run client-side in the SPANK plugin (syntax only) and in slurmctld's
// job_submit/shareq (the authority), so a user gets the same words from both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "result.hpp"

namespace shareq {

// The flags' names as the user types them; every Error::field is one of these.
inline constexpr std::string_view kShareFlag = "--share";
inline constexpr std::string_view kPriorityFlag = "--share-priority";
inline constexpr std::string_view kImageFlag = "--image";
inline constexpr std::string_view kKeepAliveFlag = "--keep-alive";

inline constexpr int kMinSharePriority = 0;
inline constexpr int kMaxSharePriority = 99;

// NAME[@sha256:HEX], HEX being 64 lower- or upper-case hex digits (stored lower-case).
struct ImageRef {
  std::string name;
  std::optional<std::string> sha256;  // 64 lower-case hex digits
  [[nodiscard]] std::string to_string() const;
  bool operator==(const ImageRef&) const = default;
};

// A share name: a Slurm account name, 1..64 characters of [A-Za-z0-9_.-]. Returned lower-case.
Result<std::string> parse_share_name(std::string_view text);
// A decimal integer 0..99, nothing else (no sign, no spaces, no suffix).
Result<int> parse_share_priority(std::string_view text);
// A plain image name, 1..128 characters of [A-Za-z0-9_.:+-] not starting with '.', no '/',
// no "..", no whitespace, then an optional "@sha256:" and 64 hex digits.
Result<ImageRef> parse_image_ref(std::string_view text);
// A decimal number of seconds, 0..max_seconds. Client side passes INT64_MAX as max.
Result<int64_t> parse_keep_alive(std::string_view text, int64_t max_seconds);

// The flags as the user gave them (command line, else SHAREQ_* environment); nullopt = absent.
struct SubmitFlags {
  std::optional<std::string> share;
  std::optional<std::string> share_priority;
  std::optional<std::string> image;
  std::optional<std::string> keep_alive;
};

// What slurmctld knows of the job besides the flags.
struct JobContext {
  std::string account;                  // the job's account ("" when none was given)
  std::vector<std::string> partitions;  // the job's partitions, default partition resolved
};

// The job's shareq parameters once accepted.
struct Submission {
  std::string share;  // lower-case; "" when no partition of the job is in a family
  int priority = 0;
  std::optional<ImageRef> image;
  int64_t keep_alive_s = 0;
  bool operator==(const Submission&) const = default;
};

// Validates a job at submission. Rules:
// - each flag parses as above; keep-alive is at most config.max_keep_alive_s;
// - the share is --share, else the job's account; for every partition of the job that belongs
//   to a family, the share must have a Share= line for that family;
// - a job none of whose partitions is in a family gets share "" (shareq does not govern it) and
//   --share is then refused, since it would mean nothing;
// - priority defaults to config.default_priority.
// The error's field is the flag at fault (kShareFlag for an unknown share or partition mismatch).
Result<Submission> validate_submission(const Config& config, const SubmitFlags& flags,
                                       const JobContext& job);

// The accepted parameters as one line, kept on the job record, e.g.
//   "shareq:share=prodexp1,priority=80,keep_alive=900,image=llama-train"
// and its inverse, which accepts exactly what encode_submission produces.
std::string encode_submission(const Submission& submission);
Result<Submission> decode_submission(std::string_view text);

}  // namespace shareq
