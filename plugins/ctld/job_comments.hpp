// What shareq writes on a job record's comments, in one place (job write lock held; memory only).
//  - SystemComment: what `scontrol show job` shows a user (a warm or cold start, a preemption, a
//    fallback). Slurm 22.05 sends it to no one else.
//  - AdminComment: job_submit/shareq's tag first, then space-separated words that slurmdbd keeps
//    with the run (sacct, and shareq-exporter's counters): a user cannot change it.
#pragma once

#include <string>

#include "ctld_api.hpp"

extern "C" {
struct job_record;
}

namespace shareq::ctld {

using JobRecord = struct job_record;

SHAREQ_CTLD_API void set_system_comment(JobRecord* job, const std::string& text);
// Adds `text` after what is there, "; " between.
SHAREQ_CTLD_API void append_system_comment(JobRecord* job, const std::string& text);
// Adds one more word to the AdminComment (the tag stays the first word); a word that is there
// already is not added again.
SHAREQ_CTLD_API void append_admin_word(JobRecord* job, const std::string& word);

}  // namespace shareq::ctld
