// Fallback= on Family lines, FallbackDelay, MaxFallbackRequeues; --fallback; the tag's home=.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.hpp"
#include "job_tag.hpp"
#include "submission.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

// p5 falls back to p4 (where only ProdExp2 has a quota), then to p4de.
const std::string kConf = R"(Family=p5 Partitions=p5 Capacity=gres/gpu=32 Fallback=p4,p4de
Family=p4 Partitions=p4,p4b Capacity=node=4
Family=p4de Partitions=p4de Capacity=node=2
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16
Share=ProdExp2 Family=p4 Quota=node=2
Share=Research Family=p4de Quota=node=1
FallbackDelay=2m
MaxFallbackRequeues=5
)";

std::string errors_of(const std::string& text) {
  const ParseResult parsed = parse_config(text, "shareq.conf");
  std::string out;
  for (const ConfigError& e : parsed.errors) out += e.to_string() + "\n";
  return out;
}

TEST(FallbackConfig, ParsesTheListAndTheSettings) {
  const Config config = testing::must_parse(kConf);
  EXPECT_EQ(config.families[0].fallback, (std::vector<std::string>{"p4", "p4de"}));
  EXPECT_TRUE(config.families[1].fallback.empty());
  EXPECT_EQ(config.fallback_delay_s, 120);
  EXPECT_EQ(config.max_fallback_requeues, 5);
}

TEST(FallbackConfig, DefaultsAreFiveMinutesAndThreeRequeues) {
  const Config config = testing::must_parse(testing::kClusterConf);
  EXPECT_EQ(config.fallback_delay_s, 300);
  EXPECT_EQ(config.max_fallback_requeues, 3);
}

TEST(FallbackConfig, FormatsAndReadsBackTheSame) {
  const Config config = testing::must_parse(kConf);
  const std::string text = format_config(config);
  EXPECT_NE(text.find("Family=p5 Partitions=p5 Capacity=gres/gpu=32 Fallback=p4,p4de\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("FallbackDelay=2m\n"), std::string::npos) << text;
  EXPECT_NE(text.find("MaxFallbackRequeues=5\n"), std::string::npos) << text;
  EXPECT_TRUE(equivalent(config, testing::must_parse(text)));
  Config other = config;
  other.families[0].fallback = {"p4de", "p4"};
  EXPECT_FALSE(equivalent(config, other));
}

TEST(FallbackConfig, RefusesAnUnknownFamilyItselfAndADuplicate) {
  const std::string base = "Family=p4 Partitions=p4 Capacity=node=4\n";
  EXPECT_NE(errors_of(base + "Family=p5 Partitions=p5 Capacity=node=4 Fallback=p6\n")
                .find("shareq.conf:2: Fallback: no family \"p6\" in this file; families: p4, p5"),
            std::string::npos);
  EXPECT_NE(errors_of(base + "Family=p5 Partitions=p5 Capacity=node=4 Fallback=p5\n")
                .find("shareq.conf:2: Fallback: family p5 falls back to itself; allowed: other "
                      "families"),
            std::string::npos);
  EXPECT_NE(errors_of(base + "Family=p5 Partitions=p5 Capacity=node=4 Fallback=p4,p4\n")
                .find("shareq.conf:2: Fallback: family p4 is listed twice"),
            std::string::npos);
  EXPECT_NE(errors_of(base + "Family=p5 Partitions=p5 Capacity=node=4 Fallback=p4,,p4\n")
                .find("shareq.conf:2: Fallback: \"\" is not a family name"),
            std::string::npos);
  // A family defined further down is fine.
  EXPECT_EQ(errors_of("Family=p5 Partitions=p5 Capacity=node=4 Fallback=p4\n" + base), "");
}

TEST(FallbackConfig, RefusesBadSettings) {
  EXPECT_NE(errors_of("FallbackDelay=soon\n")
                .find("shareq.conf:1: FallbackDelay: \"soon\" is not an integer; allowed: a "
                      "non-negative number of seconds, optionally with suffix s, m, h or d"),
            std::string::npos);
  EXPECT_NE(errors_of("MaxFallbackRequeues=101\n")
                .find("shareq.conf:1: MaxFallbackRequeues: 101 is out of range; allowed: 0..100"),
            std::string::npos);
  EXPECT_NE(errors_of("MaxFallbackRequeues=-1\n").find("0..100"), std::string::npos);
}

TEST(FallbackConfig, WarnsOfAShareThatCannotFallBack) {
  EXPECT_EQ(config_warnings(testing::must_parse(kConf)),
            (std::vector<std::string>{
                "share research has no Share= line in family p4, a Fallback= family of p5: its "
                "jobs in p5 do not fall back to p4",
                "share prodexp2 has no Share= line in family p4de, a Fallback= family of p5: its "
                "jobs in p5 do not fall back to p4de"}));
  EXPECT_TRUE(config_warnings(testing::must_parse(testing::kClusterConf)).empty());
}

// ---- submission ------------------------------------------------------------------------------

Result<Submission> submit(const std::string& account, std::vector<std::string> partitions,
                          std::optional<std::string> fallback = std::nullopt) {
  static const Config config = testing::must_parse(kConf);
  SubmitFlags flags;
  flags.fallback = std::move(fallback);
  return validate_submission(config, flags, JobContext{account, std::move(partitions), {}});
}

std::vector<std::string> added(const std::string& share, std::vector<std::string> partitions) {
  static const Config config = testing::must_parse(kConf);
  return fallback_partitions(config, share, JobContext{share, std::move(partitions), {}}, true);
}

TEST(FallbackSubmission, AJobOfAFamilyWithFallbacksGetsTheirPartitionsWhereItsShareHasAQuota) {
  EXPECT_EQ(added("prodexp2", {"p5"}), (std::vector<std::string>{"p4", "p4b"}));
  EXPECT_EQ(added("research", {"p5"}), (std::vector<std::string>{"p4de"}));
  const Result<Submission> s = submit("ProdExp2", {"p5"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s.value().home, "p5");
}

TEST(FallbackSubmission, NoFallbackWhenAskedNotToOrWhenTheJobChoseItsFamilies) {
  const Result<Submission> no = submit("ProdExp2", {"p5"}, "no");
  ASSERT_TRUE(no);
  EXPECT_EQ(no.value().home, "");
  const Result<Submission> yes = submit("ProdExp2", {"p5"}, "YES");
  ASSERT_TRUE(yes);
  EXPECT_EQ(yes.value().home, "p5");
  // -p p5,p4: the user's own choice of families, Slurm's multi-partition job.
  EXPECT_TRUE(added("prodexp2", {"p5", "p4"}).empty());
  const Result<Submission> both = submit("ProdExp2", {"p5", "p4"});
  ASSERT_TRUE(both);
  EXPECT_EQ(both.value().home, "");
  // A family without Fallback=.
  EXPECT_TRUE(added("prodexp2", {"p4"}).empty());
  // Partitions of another family listed too: the job chose its families.
  EXPECT_TRUE(added("prodexp2", {"p5", "p4b"}).empty());
}

TEST(FallbackSubmission, ABadChoiceNamesTheFlagAndTheAllowedValues) {
  const Result<Submission> bad = submit("ProdExp2", {"p5"}, "maybe");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "--fallback: \"maybe\" is not a choice; allowed: yes, no");
}

// scontrol update Account= on a pending fallback job: its partitions (p5 and the appended p4, p4b)
// are kept and so is its home family.
Result<Submission> update(const std::string& account, std::vector<std::string> partitions,
                          const std::string& home) {
  static const Config config = testing::must_parse(kConf);
  return validate_update(config, SubmitFlags{}, JobContext{account, std::move(partitions), {}},
                         home);
}

TEST(FallbackUpdate, AnAccountUpdateKeepsTheHomeFamily) {
  const Result<Submission> same = update("ProdExp2", {"p5", "p4", "p4b"}, "p5");
  ASSERT_TRUE(same) << same.error().to_string();
  EXPECT_EQ(same.value().share, "prodexp2");
  EXPECT_EQ(same.value().home, "p5");
  // Research has no Share= line in p4: the appended partitions are not the user's request, so the
  // update is accepted, and the job keeps its home (it cannot start in p4 as a job of Research).
  const Result<Submission> moved = update("Research", {"p5", "p4", "p4b"}, "p5");
  ASSERT_TRUE(moved) << moved.error().to_string();
  EXPECT_EQ(moved.value().share, "research");
  EXPECT_EQ(moved.value().home, "p5");
}

TEST(FallbackUpdate, WithoutAHomeItIsASubmission) {
  const Result<Submission> chosen = update("ProdExp2", {"p5", "p4"}, "");
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen.value().home, "");
  EXPECT_FALSE(update("Research", {"p5", "p4"}, ""));    // no Share= line in p4, which it chose
  EXPECT_FALSE(update("Research", {"p5", "p4"}, "p9"));  // no such family: as a submission
}

TEST(FallbackTag, HomeRoundTripsAfterTheImage) {
  Submission s;
  s.share = "prodexp2";
  s.priority = 70;
  s.home = "p5";
  EXPECT_EQ(encode_submission(s), "shareq:share=prodexp2,priority=70,keep_alive=0,home=p5");
  const Result<Submission> back = decode_submission(encode_submission(s));
  ASSERT_TRUE(back);
  EXPECT_EQ(back.value(), s);
  s.image = ImageRef{"llama", std::nullopt};
  EXPECT_EQ(encode_submission(s),
            "shareq:share=prodexp2,priority=70,keep_alive=0,image=llama,home=p5");
  ASSERT_TRUE(decode_submission(encode_submission(s)));
  EXPECT_EQ(decode_submission(encode_submission(s)).value(), s);
  EXPECT_FALSE(decode_submission("shareq:share=a,priority=1,keep_alive=0,home=p5,image=llama"));
  EXPECT_FALSE(decode_submission("shareq:share=a,priority=1,keep_alive=0,home="));
  EXPECT_FALSE(decode_submission("shareq:share=a,priority=1,keep_alive=0,home=p/5"));
}

}  // namespace
}  // namespace shareq
