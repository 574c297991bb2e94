// DigestBook: which answer of the image store a pending job may use, when to ask the store, and
// what the job's wait says meanwhile.
#include <gtest/gtest.h>

#include <string>

#include "warm/digest_book.hpp"

namespace shareq::warm {
namespace {

const std::string kOld(64, 'a');
const std::string kNew(64, 'b');

ImageRef image(const char* name) { return ImageRef{name, std::nullopt}; }
ImageRef pinned(const char* name, const std::string& digest) { return ImageRef{name, digest}; }

DigestAnswer published(int64_t asked, const std::string& digest) {
  return DigestAnswer{asked, asked + 1, digest, ""};
}
DigestAnswer failed(int64_t asked, int64_t answered, const char* problem) {
  return DigestAnswer{asked, answered, "", problem};
}

TEST(DigestBook, AnUnknownImageIsAskedAboutOnceAndTheJobWaits) {
  DigestBook book;
  const DigestVerdict first = book.verdict(image("llama"), 100, 100);
  EXPECT_FALSE(first.digest);
  EXPECT_TRUE(first.ask);
  EXPECT_NE(first.wait_reason.find("digest of image llama"), std::string::npos);
  book.asking("llama", 100);
  const DigestVerdict second = book.verdict(image("llama"), 100, 103);
  EXPECT_FALSE(second.ask);  // one question at a time
  EXPECT_NE(second.wait_reason.find("asked 3 s ago"), std::string::npos) << second.wait_reason;
}

TEST(DigestBook, AJobRunsTheDigestPublishedAtOrAfterItsSubmission) {
  DigestBook book;
  book.asking("llama", 100);
  book.answered("llama", published(100, kOld));
  // Submitted before (or in the second of) the question: the answer is its digest.
  EXPECT_EQ(book.verdict(image("llama"), 90, 105).digest, kOld);
  EXPECT_EQ(book.verdict(image("llama"), 100, 105).digest, kOld);
  // Submitted after it: the image may have been pushed since, so the store is asked again.
  const DigestVerdict later = book.verdict(image("llama"), 102, 105);
  EXPECT_FALSE(later.digest);
  EXPECT_TRUE(later.ask);
  book.asking("llama", 105);
  book.answered("llama", published(105, kNew));
  EXPECT_EQ(book.verdict(image("llama"), 102, 107).digest, kNew);
}

TEST(DigestBook, AQuestionOlderThanTheJobIsNotItsAnswerNorAskedTwice) {
  DigestBook book;
  book.asking("llama", 100);  // still in flight (a hung store)
  const DigestVerdict v = book.verdict(image("llama"), 104, 106);
  EXPECT_FALSE(v.digest);
  EXPECT_FALSE(v.ask);
  book.answered("llama", failed(100, 110, "image llama: timed out"));
  // That answer is older than the job: ask again, now.
  EXPECT_TRUE(book.verdict(image("llama"), 104, 110).ask);
}

TEST(DigestBook, AFailedAnswerIsTheReasonAndIsAskedAgainAfterTheRetryTime) {
  DigestBook book(DigestBookLimits{10, 100});
  book.asking("ghost", 100);
  book.answered("ghost", failed(100, 101, "image ghost: HTTP 404"));
  const DigestVerdict soon = book.verdict(image("ghost"), 100, 105);
  EXPECT_FALSE(soon.digest);
  EXPECT_FALSE(soon.ask);
  EXPECT_EQ(soon.wait_reason,
            "waiting for its image: image ghost: HTTP 404; asking again every 10 s");
  EXPECT_TRUE(book.verdict(image("ghost"), 100, 111).ask);
  // Published meanwhile: the next answer lets the job start.
  book.asking("ghost", 111);
  book.answered("ghost", published(111, kNew));
  EXPECT_EQ(book.verdict(image("ghost"), 100, 112).digest, kNew);
}

TEST(DigestBook, APinNotPublishedWaitsAndOnePublishedRuns) {
  DigestBook book;
  book.asking("llama", 100);
  book.answered("llama", published(100, kNew));
  const DigestVerdict stale = book.verdict(pinned("llama", kOld), 100, 101);
  EXPECT_FALSE(stale.digest);
  EXPECT_NE(stale.wait_reason.find("pinned digest sha256:" + kOld), std::string::npos);
  EXPECT_NE(stale.wait_reason.find("sha256:" + kNew), std::string::npos);
  EXPECT_EQ(book.verdict(pinned("llama", kNew), 100, 101).digest, kNew);
}

TEST(DigestBook, ADroppedQuestionIsAskedAgain) {
  DigestBook book;
  book.asking("llama", 100);
  book.not_asked("llama");
  EXPECT_TRUE(book.verdict(image("llama"), 100, 101).ask);
}

TEST(DigestBook, ForgetsTheLeastRecentlyUsedImageBeyondItsBound) {
  DigestBook book(DigestBookLimits{10, 2});
  book.answered("a", published(100, kOld));
  book.answered("b", published(100, kOld));
  (void)book.verdict(image("a"), 100, 150);  // a used more recently than b
  book.answered("c", published(160, kNew));
  EXPECT_EQ(book.size(), 2U);
  EXPECT_EQ(book.verdict(image("a"), 100, 170).digest, kOld);  // kept
  EXPECT_FALSE(book.verdict(image("b"), 100, 170).digest);     // forgotten: asked again
}

TEST(DigestBook, AnImageBeingAskedAboutIsNeverForgotten) {
  DigestBook book(DigestBookLimits{10, 1});
  book.asking("a", 100);
  book.answered("b", published(200, kOld));
  EXPECT_FALSE(book.verdict(image("a"), 100, 201).ask);  // its question is still in flight
}

}  // namespace
}  // namespace shareq::warm
