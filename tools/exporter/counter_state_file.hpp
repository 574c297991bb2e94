// The exporter's CounterState as a text file in its state directory (counters.state), so that
// its counters never go backwards across restarts. One record a line, fields separated by tabs:
//   shareq-exporter-counters 1
//   since EPOCH
//   watermark EPOCH
//   started JOBID START
//   ended JOBID START END
//   preemption FAMILY SHARE REASON N
//   failure FAMILY SHARE CAUSE N
//   warm FAMILY RESULT N
//   fallback FROM TO CAUSE N
//   wait FAMILY SHARE COUNT SUM BUCKET... (one count per wait_buckets() bound, cumulative)
// The exporter writes it whole to a temporary file and renames it over the old one.
#pragma once

#include <string>
#include <string_view>

#include "job_counters.hpp"
#include "result.hpp"

namespace shareq::exporter {

std::string format_counter_state(const CounterState& state);

// Precondition: none. A malformed text is an Error naming the line and what is wrong with it.
Result<CounterState> parse_counter_state(std::string_view text);

}  // namespace shareq::exporter
