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

TEST(NodeBoot, TheBootIdThenWhenPid1Started) {
  EXPECT_EQ(node_boot("8c0e-41", "1234"), "8c0e-41+1234");
  EXPECT_EQ(node_boot("8c0e-41", ""), "8c0e-41");
  EXPECT_EQ(node_boot("", "1234"), "");
}

TEST(InitStartTicks, TheTwentySecondFieldAfterTheCommandName) {
  const std::string systemd =
      "1 (systemd) S 0 1 1 0 -1 4194560 45866 4047113 99 3006 95 161 4426 3457 20 0 1 0 "
      "27 172580864 3217 18446744073709551615 1 1 0 0 0 0 671173123 4096 1260 0 0 0 17 1 0 0 0 "
      "0 0 0 0 0 0 0 0 0 0\n";
  EXPECT_EQ(init_start_ticks(systemd), "27");
  // A command name may hold spaces and parentheses: the fields start after the last ')'.
  EXPECT_EQ(init_start_ticks("1 (my (init) x) S 0 1 1 0 -1 4 5 6 7 8 9 10 11 12 20 0 1 0 "
                             "98765 1 2"),
            "98765");
  EXPECT_EQ(init_start_ticks("1 (init) S 0 1 1 0 -1 4 5 6 7 8 9 10 11 12 20 0 1 0"), "");
  EXPECT_EQ(init_start_ticks("1 (init) S 0 1 1 0 -1 4 5 6 7 8 9 10 11 12 20 0 1 0 -5"), "");
  EXPECT_EQ(init_start_ticks("no command name"), "");
  EXPECT_EQ(init_start_ticks(""), "");
}

TEST(SameBoot, ABootIdAloneIsEveryBootWithThatId) {
  EXPECT_TRUE(same_boot("b1+100", "b1+100"));
  EXPECT_FALSE(same_boot("b1+100", "b1+200"));  // the container restarted
  EXPECT_FALSE(same_boot("b1+100", "b2+100"));  // the kernel rebooted
  EXPECT_TRUE(same_boot("b1", "b1+100"));       // written before PID 1's start counted
  EXPECT_TRUE(same_boot("b1+100", "b1"));       // PID 1's start unreadable now
  EXPECT_FALSE(same_boot("b1", "b2+100"));
  EXPECT_FALSE(same_boot("", "b1+100"));  // an outcome written before boots were recorded
  EXPECT_TRUE(same_boot("", ""));
}

}  // namespace
}  // namespace shareq::warm
