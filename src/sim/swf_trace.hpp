// A trace in the Standard Workload Format of the Parallel Workloads Archive: one job per line,
// 18 whitespace-separated fields, header lines starting with ';'. Read:
//   field 1 job number (the id), 2 submit time (s), 4 run time (s), 5 allocated processors,
//   8 requested processors (the GPUs: field 8 when > 0, else field 5), 12 user, 13 group,
//   15 queue (the last three choose the share through the map, swf_map.hpp).
// Jobs skipped and counted: run time <= 0 (never ran), no processors in fields 8 and 5.
// Errors name the line and the field: a line with other than 18 fields, a field read here that
// is not an integer (fields not read may be anything, e.g. the decimals some logs have).
#pragma once

#include <string_view>

#include "sim/input_error.hpp"
#include "sim/swf_map.hpp"
#include "sim/trace.hpp"

namespace shareq::sim {

Parsed<Trace> parse_swf_trace(std::string_view text, std::string_view file, const SwfMap& map);

}  // namespace shareq::sim
