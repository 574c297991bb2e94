// The Prometheus text format: HELP and TYPE, label escaping, values, histograms.
#include "exposition.hpp"

#include <gtest/gtest.h>

namespace shareq::exporter {
namespace {

TEST(Exposition, EscapesBackslashQuoteAndNewlineInLabelValues) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(Exposition, ReplacesInvalidUtf8AndKeepsValidUtf8) {
  EXPECT_EQ(escape_label_value("caf\xC3\xA9"), "caf\xC3\xA9");  // é
  EXPECT_EQ(escape_label_value("a\xFF"
                               "b"),
            "a\xEF\xBF\xBD"
            "b");                                                         // stray byte
  EXPECT_EQ(escape_label_value("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(escape_label_value("\xED\xA0\x80"),                           // a surrogate
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(escape_label_value("x\xE2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
}

TEST(Exposition, HelpEscapesBackslashAndNewlineButNotQuotes) {
  EXPECT_EQ(escape_help("a \"b\"\\\nc"), "a \"b\"\\\\\\nc");
}

TEST(Exposition, ValuesAreExactIntegersOrShortestDoubles) {
  EXPECT_EQ(format_value(12), "12");
  EXPECT_EQ(format_value(-3), "-3");
  EXPECT_EQ(format_value(0.5), "0.5");
  EXPECT_EQ(format_value(1e20), "1e+20");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
}

TEST(Exposition, RendersHelpTypeAndSamples) {
  const std::vector<MetricFamily> families = {
      {"shareq_share_usage",
       "What the share holds.",
       MetricType::Gauge,
       {{{{"family", "p5"}, {"share", "re\"search"}}, 8, ""}, {{{"family", "p4"}}, 0, ""}}},
      {"shareq_preemptions_total", "Preempted runs.", MetricType::Counter, {}},
      {"shareq_up", "Up.", MetricType::Gauge, {{{}, 1, ""}}}};
  EXPECT_EQ(render(families),
            "# HELP shareq_share_usage What the share holds.\n"
            "# TYPE shareq_share_usage gauge\n"
            "shareq_share_usage{family=\"p5\",share=\"re\\\"search\"} 8\n"
            "shareq_share_usage{family=\"p4\"} 0\n"
            "# HELP shareq_preemptions_total Preempted runs.\n"
            "# TYPE shareq_preemptions_total counter\n"
            "# HELP shareq_up Up.\n"
            "# TYPE shareq_up gauge\n"
            "shareq_up 1\n");
}

TEST(Exposition, HistogramIsCumulativeWithInfSumAndCount) {
  const std::vector<double> bounds = {1, 10};
  HistogramData data = empty_histogram(bounds);
  observe(data, 0.5);
  observe(data, 5);
  observe(data, 50);
  MetricFamily family{"w", "h", MetricType::Histogram, {}};
  add_histogram(family, {{"family", "p5"}}, data);
  EXPECT_EQ(render({&family, 1}),
            "# HELP w h\n# TYPE w histogram\n"
            "w_bucket{family=\"p5\",le=\"1\"} 1\n"
            "w_bucket{family=\"p5\",le=\"10\"} 2\n"
            "w_bucket{family=\"p5\",le=\"+Inf\"} 3\n"
            "w_sum{family=\"p5\"} 55.5\n"
            "w_count{family=\"p5\"} 3\n");
}

}  // namespace
}  // namespace shareq::exporter
