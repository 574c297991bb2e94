// Prometheus text exposition format 0.0.4: metric families with HELP and TYPE, one sample per
// line. Pure: no I/O, no Slurm, no clock.
// https://prometheus.io/docs/instrumenting/exposition_formats/
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shareq::exporter {

enum class MetricType { Gauge, Counter, Histogram };

using Labels = std::vector<std::pair<std::string, std::string>>;  // name, value; in this order

struct Sample {
  Labels labels;
  double value = 0;
  std::string suffix;  // histograms: "_bucket", "_sum", "_count"; else empty
};

struct MetricFamily {
  std::string name;  // shareq_...
  std::string help;  // one line
  MetricType type = MetricType::Gauge;
  std::vector<Sample> samples;  // a family with none is still announced (HELP and TYPE)
};

// A label value as the format writes it between quotes: backslash, double quote and newline
// escaped (\\, \", \n); bytes that are not valid UTF-8 replaced by U+FFFD, so a scraper never
// sees a broken string.
std::string escape_label_value(std::string_view value);

// HELP's text: backslash and newline escaped (the format's rule for HELP), invalid UTF-8 replaced.
std::string escape_help(std::string_view help);

// A sample value: integers exactly ("12"), others shortest round-trip ("0.5"), +Inf, -Inf, NaN.
std::string format_value(double value);

// Every family in order: "# HELP", "# TYPE", then its samples. Precondition: names and label
// names match [a-zA-Z_:][a-zA-Z0-9_:]* (the caller's constants).
std::string render(std::span<const MetricFamily> families);

// Upper bounds (le) of a cumulative histogram, +Inf last implied.
struct HistogramData {
  std::vector<double> bounds;     // strictly increasing
  std::vector<uint64_t> buckets;  // count of observations <= bounds[i] (cumulative)
  uint64_t count = 0;             // all observations (the +Inf bucket)
  double sum = 0;
};

// Adds the _bucket (one per bound, then le="+Inf"), _sum and _count samples of one labelled
// histogram to `family`.
void add_histogram(MetricFamily& family, const Labels& labels, const HistogramData& data);

// A HistogramData with `bounds` and no observation yet.
HistogramData empty_histogram(std::span<const double> bounds);
// Counts `value` in `data`.
void observe(HistogramData& data, double value);

}  // namespace shareq::exporter
