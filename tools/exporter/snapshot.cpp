#include "snapshot.hpp"

namespace shareq::exporter {

std::string metrics_text(const Round& round, const CounterState& counters) {
  std::vector<MetricFamily> families;
  families.push_back({"shareq_up",
                      "1 when the exporter's last round read slurmctld, slurmdbd and shareq.conf; "
                      "0 when one of them failed (shareq_last_error_info says which).",
                      MetricType::Gauge,
                      {{{}, round.error.empty() ? 1.0 : 0.0, ""}}});
  MetricFamily error{"shareq_last_error_info",
                     "The last round's failure, in the error label (present only after one).",
                     MetricType::Gauge,
                     {}};
  if (!round.error.empty()) error.samples.push_back({{{"error", round.error}}, 1, ""});
  families.push_back(std::move(error));
  for (const MetricFamily& family : round.gauges) families.push_back(family);
  for (MetricFamily& family : counter_metrics(counters)) families.push_back(std::move(family));
  return render(families);
}

}  // namespace shareq::exporter
