// A trace from `sacct --parsable2` (fields separated by '|', the first line the header):
//
//   sacct -a -X --parsable2 -S 2024-01-01 -E 2024-02-01
//         -o
//         JobID,Account,Partition,Submit,Start,End,Elapsed,AllocTRES,ReqTRES,NNodes,State,AdminComment
//
// Fields, by header name (any case, any order; others are ignored):
//   required  JobID, Account (the share), Partition ("p5" or "p5,p4"), Submit
//             (YYYY-MM-DDTHH:MM:SS), Elapsed ([D-]HH:MM:SS) or both Start and End,
//             AllocTRES or ReqTRES (the GPUs: gres/gpu=N, else the sum of gres/gpu:TYPE=N;
//             AllocTRES is used when it names GPUs, else ReqTRES)
//   optional  NNodes (default: as few nodes as hold the GPUs), State, AdminComment (shareq's
//             "shareq:share=...,priority=N,..." gives the job's --share-priority)
// Rows skipped and counted: job steps (JobID with a '.'), jobs that never ran (Start
// "Unknown"/"None", State PENDING, Elapsed 0), jobs with no GPUs (no gpu entry, or 0).
// Errors, naming the line, the field and what is allowed: a GPU count in AllocTRES/ReqTRES that
// is not 0..1000000000, NNodes not 1..1000000, an End before Start, an AdminComment priority=N
// not 0..99; a row skipped as never ran is not read further.
#pragma once

#include <string>
#include <string_view>

#include "sim/input_error.hpp"
#include "sim/trace.hpp"

namespace shareq::sim {

Parsed<Trace> parse_sacct_trace(std::string_view text, std::string_view file);

}  // namespace shareq::sim
