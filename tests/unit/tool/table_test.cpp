#include "table.hpp"

#include <gtest/gtest.h>

#include "policy/policy.hpp"
#include "why_report.hpp"

namespace shareq::tool {
namespace {

TEST(Table, AlignsTextLeftAndNumbersRight) {
  Table table({"SHARE", "QUOTA", "LIMIT"});
  table.add({"research", "16", "UNLIMITED"});
  table.add({"a", "2", "8"});
  EXPECT_EQ(table.render(),
            "SHARE     QUOTA      LIMIT\n"
            "research     16  UNLIMITED\n"
            "a             2          8\n");
}

TEST(Table, ShortRowsArePaddedAndNoLineEndsInSpaces) {
  Table table({"A", "B"});
  table.add({"x"});
  EXPECT_EQ(table.render(), "A  B\nx\n");
}

TEST(Cells, UnlimitedAndAmountsInWords) {
  EXPECT_EQ(cell(policy::kUnlimited), "UNLIMITED");
  EXPECT_EQ(cell(7), "7");
  EXPECT_EQ(amount_text(1, Unit::Node), "1 node");
  EXPECT_EQ(amount_text(4, Unit::Node), "4 nodes");
  EXPECT_EQ(amount_text(1, Unit::Gpu), "1 GPU");
  EXPECT_EQ(amount_text(32, Unit::Gpu), "32 GPUs");
  EXPECT_EQ(amount_text(policy::kUnlimited, Unit::Gpu), "UNLIMITED");
}

TEST(Durations, ForPeople) {
  EXPECT_EQ(duration_text(-5), "0s");
  EXPECT_EQ(duration_text(45), "45s");
  EXPECT_EQ(duration_text(870), "14m 30s");
  EXPECT_EQ(duration_text(7500), "2h 05m");
  EXPECT_EQ(duration_text(3 * 86400 + 4 * 3600 + 59), "3d 4h");
}

TEST(LocalTime, ParsesWhatThePluginsWriteAndPrintsItBack) {
  const auto t = parse_local_time("2025-01-15T10:00:00");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(local_time_text(*t), "2025-01-15 10:00:00");
  EXPECT_EQ(*parse_local_time("2025-01-15T10:15:30") - *t, 930);
  EXPECT_FALSE(parse_local_time("2025-01-15 10:00:00").has_value());
  EXPECT_FALSE(parse_local_time("2025-01-15T10:00:00Z").has_value());
  EXPECT_FALSE(parse_local_time("").has_value());
}

TEST(Json, StringsAreEscapedAndUnlimitedIsNull) {
  EXPECT_EQ(json_string("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(json_amount(policy::kUnlimited), "null");
  EXPECT_EQ(json_amount(3), "3");
}

TEST(Ordinal, EnglishSuffixes) {
  EXPECT_EQ(ordinal(1), "1st");
  EXPECT_EQ(ordinal(2), "2nd");
  EXPECT_EQ(ordinal(3), "3rd");
  EXPECT_EQ(ordinal(4), "4th");
  EXPECT_EQ(ordinal(11), "11th");
  EXPECT_EQ(ordinal(12), "12th");
  EXPECT_EQ(ordinal(13), "13th");
  EXPECT_EQ(ordinal(21), "21st");
  EXPECT_EQ(ordinal(112), "112th");
}

}  // namespace
}  // namespace shareq::tool
