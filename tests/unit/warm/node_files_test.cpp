// The node side's small texts (NAME.state, JOBS/ID, SHAREQ_WARM_ENDED), which
// plugins/spank/node.cpp writes and reads as root on each node.
#include "warm/node_files.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace shareq::warm {
namespace {

const std::string kDigest(64, 'a');

TEST(WarmDirState, ExactTextAndRoundTrip) {
  EXPECT_EQ(format_warm_dir_state({"inuse", 17, kDigest}), "inuse 17 " + kDigest + "\n");
  EXPECT_EQ(format_warm_dir_state({"until", 1'000'900, ""}), "until 1000900 \n");
  for (const WarmDirState& s :
       {WarmDirState{"inuse", 17, kDigest}, WarmDirState{"until", 1'000'900, ""},
        WarmDirState{"until", -3, kDigest}}) {
    EXPECT_EQ(parse_warm_dir_state(format_warm_dir_state(s)), s);
  }
}

TEST(WarmDirState, ReadsAsAStreamDoes) {
  EXPECT_EQ(parse_warm_dir_state("until 0\n"), (WarmDirState{"until", 0, ""}));
  EXPECT_EQ(parse_warm_dir_state("  until\t+12  " + kDigest + " trailing"),
            (WarmDirState{"until", 12, kDigest}));
  // A digest that is not 64 lower-case hex digits is dropped; the rest stands.
  EXPECT_EQ(parse_warm_dir_state("until 5 " + std::string(64, 'A')),
            (WarmDirState{"until", 5, ""}));
  EXPECT_EQ(parse_warm_dir_state("until 5 abc"), (WarmDirState{"until", 5, ""}));
  EXPECT_EQ(parse_warm_dir_state("until 12abc"), (WarmDirState{"until", 12, ""}));
  EXPECT_EQ(parse_warm_dir_state("anything 1"), (WarmDirState{"anything", 1, ""}));
}

TEST(WarmDirState, MissingOrBadNumbersAreNothing) {
  for (const std::string text : {"", "\n", "until", "until \n", "until soon", "until x5",
                                 "until 99999999999999999999", "5"}) {
    EXPECT_FALSE(parse_warm_dir_state(text).has_value()) << text;
  }
}

TEST(PreparedJob, ExactTextAndRoundTrip) {
  const PreparedJob p{"/cache/img", kDigest, "/warm/warm-3", "", "0f3e-boot"};
  EXPECT_EQ(format_prepared(p), "image_path=/cache/img\ndigest=" + kDigest +
                                    "\nwarm_dir=/warm/warm-3\nerror=\nboot=0f3e-boot\n");
  EXPECT_EQ(parse_prepared(format_prepared(p)), p);
  EXPECT_EQ(parse_prepared(""), PreparedJob{});
}

TEST(PreparedJob, AValueStaysOnItsLine) {
  const PreparedJob p{"", "", "", "image x: bad\nerror=injected\r", ""};
  EXPECT_EQ(format_prepared(p),
            "image_path=\ndigest=\nwarm_dir=\nerror=image x: bad error=injected \nboot=\n");
  EXPECT_EQ(parse_prepared(format_prepared(p)).error, "image x: bad error=injected ");
}

TEST(PreparedJob, UnknownAndBrokenLinesAreIgnoredAndTheLastLineWins) {
  EXPECT_EQ(parse_prepared("junk\nfoo=bar\nerror=a=b\nwarm_dir=/w\nerror=second"),
            (PreparedJob{"", "", "/w", "second", ""}));
  EXPECT_EQ(parse_prepared("image_path=/a\r\n"), (PreparedJob{"/a\r", "", "", "", ""}));
}

TEST(SplitWarmNames, KeepsOnlyWarmDirectoryNames) {
  EXPECT_EQ(split_warm_names("warm-1,warm-22"), (std::vector<std::string>{"warm-1", "warm-22"}));
  EXPECT_EQ(split_warm_names(""), std::vector<std::string>{});
  EXPECT_EQ(split_warm_names(","), std::vector<std::string>{});
  EXPECT_EQ(split_warm_names("warm-1,,../x,warm-,warm-3,warm-0,warm-4294967296"),
            (std::vector<std::string>{"warm-1", "warm-3"}));
}

}  // namespace
}  // namespace shareq::warm
