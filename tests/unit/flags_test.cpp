#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "flags.hpp"

namespace shareq {
namespace {

const std::string kDigest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

struct FlagCase {
  std::string scenario;
  std::string input;
  // The value's canonical form when accepted, else the whole error text ("": any refusal).
  std::string expected;
  bool accepted;
  friend void PrintTo(const FlagCase& c, std::ostream* os) { *os << c.scenario; }
};

std::string case_name(const ::testing::TestParamInfo<FlagCase>& info) {
  std::string name;
  for (char c : info.param.scenario) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

template <typename T, typename Show>
void check(const FlagCase& c, const Result<T>& result, Show show) {
  if (c.accepted) {
    ASSERT_TRUE(result.ok()) << c.scenario << ": " << result.error().to_string();
    EXPECT_EQ(show(result.value()), c.expected) << c.scenario;
  } else {
    ASSERT_FALSE(result.ok()) << c.scenario;
    if (!c.expected.empty()) {
      EXPECT_EQ(result.error().to_string(), c.expected) << c.scenario;
    }
  }
}

class SharePriorityTest : public ::testing::TestWithParam<FlagCase> {};
TEST_P(SharePriorityTest, Parses) {
  check(GetParam(), parse_share_priority(GetParam().input),
        [](int v) { return std::to_string(v); });
}
const std::string kPriorityAllowed = "; allowed: 0..99";
INSTANTIATE_TEST_SUITE_P(
    Boundaries, SharePriorityTest,
    ::testing::Values(
        FlagCase{"zero", "0", "0", true}, FlagCase{"ninety nine", "99", "99", true},
        FlagCase{"leading zero", "07", "7", true},
        FlagCase{"one hundred", "100", "--share-priority: 100 is out of range" + kPriorityAllowed,
                 false},
        FlagCase{"minus one", "-1", "--share-priority: \"-1\" is negative" + kPriorityAllowed,
                 false},
        FlagCase{"empty", "", "--share-priority: is empty" + kPriorityAllowed, false},
        FlagCase{"leading space", " 5",
                 "--share-priority: \" 5\" is not an integer" + kPriorityAllowed, false},
        FlagCase{"suffix", "5x", "--share-priority: \"5x\" is not an integer" + kPriorityAllowed,
                 false},
        FlagCase{"plus sign", "+5",
                 "--share-priority: \"+5\" is not a whole number without a sign" + kPriorityAllowed,
                 false},
        FlagCase{"word", "abc", "--share-priority: \"abc\" is not an integer" + kPriorityAllowed,
                 false},
        FlagCase{"huge", "99999999999999999999999",
                 "--share-priority: 99999999999999999999999 is out of range" + kPriorityAllowed,
                 false},
        FlagCase{"control character", "5\n",
                 "--share-priority: \"5\\n\" is not an integer" + kPriorityAllowed, false}),
    case_name);

class ShareNameTest : public ::testing::TestWithParam<FlagCase> {};
TEST_P(ShareNameTest, Parses) {
  check(GetParam(), parse_share_name(GetParam().input), [](const std::string& v) { return v; });
}
const std::string kShareRule =
    "; a share is a Slurm account name, 1..64 characters of [A-Za-z0-9_.-]";
INSTANTIATE_TEST_SUITE_P(
    Names, ShareNameTest,
    ::testing::Values(
        FlagCase{"lower-cased", "ProdExp1", "prodexp1", true},
        FlagCase{"punctuation allowed", "a_b.c-d", "a_b.c-d", true},
        FlagCase{"64 characters", std::string(64, 'a'), std::string(64, 'a'), true},
        FlagCase{"65 characters", std::string(65, 'a'),
                 "--share: \"" + std::string(64, 'a') + "...\" is 65 characters long" + kShareRule,
                 false},
        FlagCase{"empty", "", "--share: is empty" + kShareRule, false},
        FlagCase{"space", "a b", "--share: \"a b\" contains \" \"" + kShareRule, false},
        FlagCase{"slash", "a/b", "--share: \"a/b\" contains \"/\"" + kShareRule, false},
        FlagCase{"quote and escape", "a\"\x7f",
                 "--share: \"a\\\"\\x7f\" contains \"\\\"\"" + kShareRule, false}),
    case_name);

class ImageRefTest : public ::testing::TestWithParam<FlagCase> {};
TEST_P(ImageRefTest, Parses) {
  check(GetParam(), parse_image_ref(GetParam().input),
        [](const ImageRef& v) { return v.to_string(); });
}
const std::string kImageRule =
    "; an image is a plain name [A-Za-z0-9_.:+-], optionally @sha256:<64 hex digits>";
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
INSTANTIATE_TEST_SUITE_P(
    Images, ImageRefTest,
    ::testing::Values(
        FlagCase{"plain name", "llama-train", "llama-train", true},
        FlagCase{"name with tag", "llama:v1.2+cu12_x", "llama:v1.2+cu12_x", true},
        FlagCase{"with digest", "llama@sha256:" + kDigest, "llama@sha256:" + kDigest, true},
        FlagCase{"upper-case digest normalised", "llama@sha256:" + upper(kDigest),
                 "llama@sha256:" + kDigest, true},
        FlagCase{"128 characters", std::string(128, 'a'), std::string(128, 'a'), true},
        FlagCase{"129 characters", std::string(129, 'a'),
                 "--image: \"" + std::string(64, 'a') + "...\" is 129 characters long, over 128" +
                     kImageRule,
                 false},
        FlagCase{"slash", "a/b", "--image: \"a/b\" contains \"/\"" + kImageRule, false},
        FlagCase{"dot dot", "a..b", "--image: \"a..b\" contains \"..\"" + kImageRule, false},
        FlagCase{"leading dot", ".hidden", "--image: \".hidden\" starts with \".\"" + kImageRule,
                 false},
        FlagCase{"space", "a b", "--image: \"a b\" contains \" \"" + kImageRule, false},
        FlagCase{"tab", "a\tb", "--image: \"a\\tb\" contains \"\\t\"" + kImageRule, false},
        FlagCase{"empty", "", "--image: is empty" + kImageRule, false},
        FlagCase{"digest only", "@sha256:" + kDigest,
                 "--image: \"@sha256:" + kDigest.substr(0, 56) + "...\" has no name before \"@\"" +
                     kImageRule,
                 false},
        FlagCase{"short digest", "a@sha256:abc",
                 "--image: \"a@sha256:abc\" has a digest of 3 hex digits, not 64" + kImageRule,
                 false},
        FlagCase{"long digest", "a@sha256:" + kDigest + "0", "", false},
        FlagCase{"non-hex digest", "a@sha256:" + kDigest.substr(1) + "g",
                 "--image: \"a@sha256:" + kDigest.substr(1, 55) +
                     "...\" has a digest with \"g\", not hex" + kImageRule,
                 false},
        FlagCase{
            "other algorithm", "a@md5:abc",
            "--image: \"a@md5:abc\" has a digest that does not start with \"sha256:\"" + kImageRule,
            false},
        FlagCase{"upper-case algorithm is named", "a@SHA256:" + kDigest,
                 "--image: \"a@SHA256:" + kDigest.substr(0, 55) +
                     "...\" has a digest algorithm \"SHA256\"; the digest algorithm must be "
                     "lower case \"sha256\" (OCI image spec)" +
                     kImageRule,
                 false},
        FlagCase{"mixed-case algorithm is named", "a@Sha256:abc",
                 "--image: \"a@Sha256:abc\" has a digest algorithm \"Sha256\"; the digest "
                 "algorithm must be lower case \"sha256\" (OCI image spec)" +
                     kImageRule,
                 false},
        FlagCase{"two at signs", "a@sha256:" + kDigest + "@x", "", false},
        FlagCase{"empty digest", "a@", "", false}),
    case_name);

TEST(ImageRef, RefusalsNameTheFlag) {
  for (const std::string& input :
       {"a@sha256:" + kDigest + "0", "a@sha256:" + kDigest + "@x", std::string("a@")}) {
    const Result<ImageRef> result = parse_image_ref(input);
    ASSERT_FALSE(result.ok()) << input;
    EXPECT_EQ(result.error().field, "--image");
  }
}

class KeepAliveTest : public ::testing::TestWithParam<FlagCase> {};
TEST_P(KeepAliveTest, ParsesAgainstMaxKeepAlive3600) {
  check(GetParam(), parse_keep_alive(GetParam().input, 3600),
        [](int64_t v) { return std::to_string(v); });
}
const std::string kKeepAllowed = "; allowed: 0..3600 seconds";
INSTANTIATE_TEST_SUITE_P(
    Boundaries, KeepAliveTest,
    ::testing::Values(
        FlagCase{"zero", "0", "0", true}, FlagCase{"the maximum", "3600", "3600", true},
        FlagCase{"above the maximum", "7200",
                 "--keep-alive: 7200 is above MaxKeepAlive=3600" + kKeepAllowed, false},
        FlagCase{"one above", "3601",
                 "--keep-alive: 3601 is above MaxKeepAlive=3600" + kKeepAllowed, false},
        FlagCase{"negative", "-1", "--keep-alive: \"-1\" is negative" + kKeepAllowed, false},
        FlagCase{"minus zero is no negative number", "-0",
                 "--keep-alive: \"-0\" is not a whole number without a sign" + kKeepAllowed, false},
        FlagCase{"plus zero", "+0",
                 "--keep-alive: \"+0\" is not a whole number without a sign" + kKeepAllowed, false},
        FlagCase{"suffix", "15m", "--keep-alive: \"15m\" is not an integer" + kKeepAllowed, false},
        FlagCase{"empty", "", "--keep-alive: is empty" + kKeepAllowed, false},
        FlagCase{"huge", "99999999999999999999",
                 "--keep-alive: 99999999999999999999 is out of range" + kKeepAllowed, false}),
    case_name);

TEST(KeepAlive, ClientSideHasNoMaximum) {
  const auto max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(parse_keep_alive("9223372036854775807", max).value(), max);
  EXPECT_FALSE(parse_keep_alive("9223372036854775808", max).ok());
}

TEST(Flags, LongValuesAreCutInMessages) {
  const std::string message = parse_share_priority(std::string(1000, 'x')).error().message;
  EXPECT_LT(message.size(), 120u);
  EXPECT_NE(message.find("...\""), std::string::npos);
}

}  // namespace
}  // namespace shareq
