// priority/shareq's decayed-usage state file as text (usage_format.hpp): exact text, exact round
// trips of the values, and every malformed text refused whole with the line at fault.
#include "usage_format.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace shareq {
namespace {

TEST(UsageFormat, ExactTextAndExactRoundTrip) {
  const UsageFile file{1'700'000'000, {{"prodexp1", "p4", 7200.5}, {"research", "p5", 0.1 + 0.2}}};
  const std::string text = format_usage(file);
  EXPECT_EQ(text,
            "# shareq decayed usage: SHARE FAMILY UNIT_SECONDS\nversion=2\nlast_ran=1700000000\n"
            "prodexp1 p4 7200.5\nresearch p5 0.30000000000000004\nend\n");
  const Result<UsageFile> back = parse_usage(text, "f");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), file);
  EXPECT_EQ(back.value().records[1].value, 0.1 + 0.2);
}

TEST(UsageFormat, AFileCutAtALineBoundaryIsRefused) {
  const std::string text = format_usage({5, {{"prodexp1", "p4", 1}, {"research", "p5", 2}}});
  const size_t last_record = text.rfind("research");
  ASSERT_NE(last_record, std::string::npos);
  for (const size_t cut : {last_record, text.size() - 4}) {  // before a record, before "end"
    const Result<UsageFile> parsed = parse_usage(text.substr(0, cut), "f");
    ASSERT_FALSE(parsed) << text.substr(0, cut);
    EXPECT_EQ(parsed.error().message, "truncated (no \"end\" line)");
  }
}

TEST(UsageFormat, AnEarlierShareqsFileWithoutEndIsRead) {
  const Result<UsageFile> old = parse_usage("version=1\nlast_ran=17\nprodexp1 p4 2.5\n", "f");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old.value(), (UsageFile{17, {{"prodexp1", "p4", 2.5}}}));
}

TEST(UsageFormat, CommentsBlankLinesTabsAndNoRecords) {
  const Result<UsageFile> none =
      parse_usage("# hello\nversion=2\n\nlast_ran=17\n# none\nend\n# after\n\n", "f");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_EQ(none.value(), (UsageFile{17, {}}));
  const Result<UsageFile> tabs = parse_usage("version=1\nlast_ran=0\n\tA.b-c_1 \tp4  1e3 \n", "f");
  ASSERT_TRUE(tabs) << tabs.error().to_string();
  EXPECT_EQ(tabs.value(), (UsageFile{0, {{"A.b-c_1", "p4", 1000}}}));
}

TEST(UsageFormat, MalformedTextIsRefusedWholeWithTheLineAtFault) {
  for (const auto& [text, where, problem] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"", "f:0", "empty file"},
           {"version=1\nlast_ran=5\nprodexp1 p4 12", "f:0", "truncated"},
           {"version=3\nlast_ran=5\n", "f:1", "expected \"version=2\" (or"},
           {"version=2\nlast_ran=5\nend\nprodexp1 p4 1\n", "f:4", "text after the \"end\""},
           {"version=2\nlast_ran=5\nprodexp1 p4 1\n", "f:3", "truncated (no \"end\" line)"},
           {"version=1\nlast_ran=5\nend\n", "f:3", "expected \"SHARE FAMILY VALUE\""},
           {"version=1\nlast_ran=soon\n", "f:2", "last_ran is not"},
           {"version=1\nlast_ran=-1\n", "f:2", "last_ran is not"},
           {"version=1\nlast_ran=\n", "f:2", "last_ran is not"},
           {"version=1\nlast_ran=99999999999999999999\n", "f:2", "last_ran is not"},
           {"version=1\n5\n", "f:2", "expected \"last_ran=SECONDS\""},
           {"version=1\nlast_ran=5\nprodexp1 p4\n", "f:3", "expected \"SHARE FAMILY VALUE\""},
           {"version=1\nlast_ran=5\nprodexp1 p4 1 extra\n", "f:3", "SHARE FAMILY VALUE"},
           {"version=1\nlast_ran=5\nprodexp1 p4 -3\n", "f:3", "finite number >= 0"},
           {"version=1\nlast_ran=5\nprodexp1 p4 nan\n", "f:3", "finite number >= 0"},
           {"version=1\nlast_ran=5\nprodexp1 p4 inf\n", "f:3", "finite number >= 0"},
           {"version=1\nlast_ran=5\nprodexp1 p4 1e999\n", "f:3", "finite number >= 0"},
           {"version=1\nlast_ran=5\nprodexp1 p4 12x\n", "f:3", "finite number >= 0"},
           {"version=1\nlast_ran=5\nprod/exp p4 1\n", "f:3", "bad share or family name"},
           {"version=1\nlast_ran=5\n" + std::string(65, 'a') + " p4 1\n", "f:3", "bad share"},
           {"version=1\n", "f:1", "truncated (no version or last_ran)"},
           {"# only a comment\n", "f:1", "truncated (no version or last_ran)"},
       }) {
    const Result<UsageFile> parsed = parse_usage(text, "f");
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error().field, where) << text;
    EXPECT_NE(parsed.error().message.find(problem), std::string::npos)
        << text << ": " << parsed.error().message;
  }
}

}  // namespace
}  // namespace shareq
