#include "policy/run_words.hpp"

#include <gtest/gtest.h>

namespace shareq::policy::testing {
namespace {

TEST(RunWords, EachWordIsFoundForTheRunItNamesOnly) {
  const std::string comment = "share=a,prio=50 " + preempted_word("reclaim", 7, 100) + " " +
                              start_word("warm", 200) + " " + fallback_word("prolog", "p5", 200) +
                              " " + preempted_word("in_share", 9, 200);
  EXPECT_EQ(run_word_kind(comment, kPreemptedWord, 100), "reclaim");
  EXPECT_EQ(run_word_kind(comment, kPreemptedWord, 200), "in_share");
  EXPECT_EQ(run_word_kind(comment, kPreemptedWord, 300), std::nullopt);
  EXPECT_EQ(run_word_kind(comment, kStartWord, 200), "warm");
  EXPECT_EQ(run_word_kind(comment, kStartWord, 100), std::nullopt);
  const auto fallback = run_word_fields(comment, kFallbackWord, 200);
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(word_field(*fallback, "from"), "p5");
  EXPECT_EQ(run_word_kind(comment, kFallbackWord, 200), "prolog");
}

TEST(RunWords, WordsWithoutAReadableStartNameNoRun) {
  EXPECT_EQ(run_word_kind("shareq-preempted:reclaim,by:7", kPreemptedWord, 0), std::nullopt);
  EXPECT_EQ(run_word_kind("shareq-preempted:reclaim,by:7,run:12x", kPreemptedWord, 12),
            std::nullopt);
  EXPECT_EQ(run_word_kind("shareq-start:warm,at:", kStartWord, 0), std::nullopt);
  EXPECT_EQ(word_field("reclaim,by:7", "b"), std::nullopt);  // a key is a whole key
}

}  // namespace
}  // namespace shareq::policy::testing
