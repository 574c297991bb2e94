// parse_digest_file: the forms of NAME.sha256 accepted and refused.
#include <gtest/gtest.h>

#include "warm/digest_file.hpp"

namespace shareq::warm {
namespace {

const std::string kHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kUpper = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";

TEST(DigestFile, Accepts) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"bare", kHex},
      {"bare with newline", kHex + "\n"},
      {"bare with CRLF", kHex + "\r\n"},
      {"upper case", kUpper + "\n"},
      {"sha256sum text mode", kHex + "  llama\n"},
      {"sha256sum binary mode", kHex + " *llama\n"},
      {"sha256sum with a path", kHex + "  /srv/images/llama\n"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    const Result<std::string> digest = parse_digest_file(text, "llama");
    ASSERT_TRUE(digest) << digest.error().to_string();
    EXPECT_EQ(digest.value(), kHex);
  }
}

TEST(DigestFile, Refuses) {
  const std::vector<std::tuple<const char*, std::string, const char*>> cases = {
      {"empty", "", "is empty"},
      {"just a newline", "\n", "is empty"},
      {"short", kHex.substr(0, 63), "64 hex"},
      {"not hex", "g" + kHex.substr(1), "64 hex"},
      {"two lines", kHex + "\n" + kHex + "\n", "more than one line"},
      {"one space", kHex + " llama", "stray text"},
      {"longer digest", kHex + "0", "stray text"},
      {"another image", kHex + "  mistral\n", "not for \"llama\""},
      {"empty name", kHex + "  ", "not for"},
  };
  for (const auto& [name, text, part] : cases) {
    SCOPED_TRACE(name);
    const Result<std::string> digest = parse_digest_file(text, "llama");
    ASSERT_FALSE(digest);
    EXPECT_EQ(digest.error().field, "image");
    EXPECT_NE(digest.error().message.find("image llama"), std::string::npos);
    EXPECT_NE(digest.error().message.find(part), std::string::npos) << digest.error().message;
  }
}

TEST(DigestFile, IsSha256Hex) {
  EXPECT_TRUE(is_sha256_hex(kHex));
  EXPECT_TRUE(is_sha256_hex(kUpper));
  EXPECT_FALSE(is_sha256_hex(kUpper, false));
  EXPECT_FALSE(is_sha256_hex(kHex + "0"));
}

}  // namespace
}  // namespace shareq::warm
