#include <gtest/gtest.h>

#include <string>

#include "job_tag.hpp"

namespace shareq {

// Test names show the tag rather than the bytes of the Submission.
void PrintTo(const Submission& submission, std::ostream* os) {
  *os << encode_submission(submission);
}

namespace {

const std::string kDigest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(JobTag, EncodesTheDocumentedLine) {
  EXPECT_EQ(encode_submission(Submission{"prodexp1", 80, std::nullopt, 900}),
            "shareq:share=prodexp1,priority=80,keep_alive=900");
  EXPECT_EQ(encode_submission(Submission{"prodexp1", 80, ImageRef{"llama-train", kDigest}, 900}),
            "shareq:share=prodexp1,priority=80,keep_alive=900,image=llama-train@sha256:" + kDigest);
}

class JobTagRoundTrip : public ::testing::TestWithParam<Submission> {};

TEST_P(JobTagRoundTrip, DecodeGivesBackTheSubmission) {
  const std::string tag = encode_submission(GetParam());
  const Result<Submission> decoded = decode_submission(tag);
  ASSERT_TRUE(decoded.ok()) << tag << ": " << decoded.error().to_string();
  EXPECT_EQ(decoded.value(), GetParam());
  EXPECT_EQ(encode_submission(decoded.value()), tag);
}

INSTANTIATE_TEST_SUITE_P(
    Submissions, JobTagRoundTrip,
    ::testing::Values(Submission{"prodexp1", 80, std::nullopt, 900},
                      Submission{"research", 0, ImageRef{"llama:v1", std::nullopt}, 0},
                      Submission{"a.b-c_d", 99, ImageRef{"x", kDigest}, 9223372036854775807},
                      Submission{"", 50, std::nullopt, 0}));

class MalformedTag : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedTag, IsRefusedWithFieldTag) {
  const Result<Submission> decoded = decode_submission(GetParam());
  ASSERT_FALSE(decoded.ok()) << GetParam();
  EXPECT_EQ(decoded.error().field, "tag");
  EXPECT_NE(decoded.error().message.find("is not a shareq job tag"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Tags, MalformedTag,
    ::testing::Values(
        "", "shareq", "shareq:share=a,priority=1",
        "shareq:share=a,priority=1,keep_alive=0,image=x,extra=1",
        "shareQ:share=a,priority=1,keep_alive=0", " shareq:share=a,priority=1,keep_alive=0",
        "shareq:share=a,priority=1,keep_alive=0 ", "shareq  share=a,priority=1,keep_alive=0",
        "shareq:share=A,priority=1,keep_alive=0", "shareq:share=a/b,priority=1,keep_alive=0",
        "shareq:priority=1,share=a,keep_alive=0", "shareq:share=a,priority=100,keep_alive=0",
        "shareq:share=a,priority=01,keep_alive=0", "shareq:share=a,priority=,keep_alive=0",
        "shareq:share=a,priority=1,keep_alive=-1", "shareq:share=a,priority=1,keep_alive=00",
        "shareq:share=a,priority=1,keep_alive=99999999999999999999",
        "shareq:share=a,priority=1,keepalive=0", "shareq:share=a,priority=1,keep_alive=0,image=",
        "shareq:share=a,priority=1,keep_alive=0,image=a/b",
        "shareq:share=a,priority=1,keep_alive=0,img=a",
        "shareq:share=a,priority=1,keep_alive=0,image=x@sha256:" + std::string(64, 'A'),
        "shareq:share=a\tpriority=1,keep_alive=0", "shareq:share=a,priority=1,keep_alive=0\n"));

// The tag is the AdminComment's first word; the history is the rest, its first space kept, so
// that tag + history gives the comment back.
TEST(AdminComment, SplitsTheTagFromTheHistory) {
  const std::string tag = "shareq:share=a,priority=1,keep_alive=0";
  const std::string history = " shareq-preempted:reclaim,by:7,run:100 shareq-start:200";
  const std::string comment = tag + history;  // the parts are views into it
  const AdminCommentParts both = split_admin_comment(comment);
  EXPECT_EQ(both.tag, tag);
  EXPECT_EQ(both.history, history);
  const AdminCommentParts alone = split_admin_comment(tag);
  EXPECT_EQ(alone.tag, tag);
  EXPECT_EQ(alone.history, "");
  const AdminCommentParts leading = split_admin_comment(" x");
  EXPECT_EQ(leading.tag, "");
  EXPECT_EQ(leading.history, " x");
  EXPECT_EQ(split_admin_comment("").tag, "");
}

}  // namespace
}  // namespace shareq
