// The job tag: a job's accepted Submission as one line, which job_submit/shareq keeps on the job
// record (the first word of its AdminComment), e.g.
//   "shareq:share=prodexp1,priority=80,keep_alive=900,image=llama-train,home=p5"
// (image= and home= only when set: home= names the family a job with fallback partitions was
// submitted to, fallback.hpp)
// Fields in that order, comma-separated, with no space so that the tag stays one word in
// `scontrol -o show job` and sacct's parsable output; every value canonical (lower-case share, no
// leading zeros, lower-case digest).
#pragma once

#include <string>
#include <string_view>

#include "result.hpp"
#include "submission.hpp"

namespace shareq {

std::string encode_submission(const Submission& submission);
// The inverse of encode_submission: succeeds exactly on its output, and
// encode_submission(decode_submission(s)) == s.
Result<Submission> decode_submission(std::string_view text);

// An AdminComment is the tag, then the job's history: words after a space (failed runs,
// preemptions, warm-pool notes) that shareq appends and keeps when the tag is rewritten.
struct AdminCommentParts {
  std::string_view tag;      // the first word (empty when the comment starts with a space)
  std::string_view history;  // the rest from the first space, that space included; may be empty
};
AdminCommentParts split_admin_comment(std::string_view admin_comment);

}  // namespace shareq
