// One scrape's answer: shareq_up, the last error, the gauges of the last round and the counters.
// Pure.
#pragma once

#include <string>
#include <vector>

#include "exposition.hpp"
#include "job_counters.hpp"

namespace shareq::exporter {

struct Round {
  // The gauges read in this round; empty when slurmctld (or shareq.conf) could not be read:
  // the exporter then shows no gauge rather than stale ones.
  std::vector<MetricFamily> gauges;
  // Empty when every read of the round succeeded; else the first failure, one sentence.
  std::string error;
};

// shareq_up (1 when the round had no error), shareq_last_error_info{error="..."} 1 (only
// after a failed round), the round's gauges, then counter_metrics(counters), whose values
// persist across failed rounds.
std::string metrics_text(const Round& round, const CounterState& counters);

}  // namespace shareq::exporter
