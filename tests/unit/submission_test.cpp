#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "submission.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

// A job at submission, built fluently: Job().share("ProdExp1").partitions({"p4"}).
class Job {
 public:
  Job& share(std::string v) {
    flags_.share = std::move(v);
    return *this;
  }
  Job& priority(std::string v) {
    flags_.share_priority = std::move(v);
    return *this;
  }
  Job& image(std::string v) {
    flags_.image = std::move(v);
    return *this;
  }
  Job& keep_alive(std::string v) {
    flags_.keep_alive = std::move(v);
    return *this;
  }
  Job& account(std::string v) {
    context_.account = std::move(v);
    return *this;
  }
  Job& partitions(std::vector<std::string> v) {
    context_.partitions = std::move(v);
    return *this;
  }
  Job& parents(std::vector<std::string> v) {  // the accounts above the job's, nearest first
    context_.parent_accounts = std::move(v);
    return *this;
  }
  [[nodiscard]] Result<Submission> validate(const Config& config) const {
    return validate_submission(config, flags_, context_);
  }

 private:
  SubmitFlags flags_;
  JobContext context_;
};

const Config& cluster() {
  static const Config config = testing::must_parse(testing::kClusterConf);
  return config;
}

struct AcceptCase {
  std::string scenario;
  Job job;
  Submission expected;
  friend void PrintTo(const AcceptCase& c, std::ostream* os) { *os << c.scenario; }
};

class AcceptedTest : public ::testing::TestWithParam<AcceptCase> {};

TEST_P(AcceptedTest, GivesTheSubmission) {
  const Config before = cluster();
  const Result<Submission> result = GetParam().job.validate(cluster());
  ASSERT_TRUE(result.ok()) << GetParam().scenario << ": " << result.error().to_string();
  EXPECT_EQ(result.value(), GetParam().expected) << GetParam().scenario;
  EXPECT_EQ(format_config(cluster()), format_config(before));
}

const std::string kDigest(64, 'a');

INSTANTIATE_TEST_SUITE_P(
    Scenarios, AcceptedTest,
    ::testing::Values(AcceptCase{"share from --share",
                                 Job().share("ProdExp1").account("other").partitions({"p4"}),
                                 Submission{"prodexp1", 50, std::nullopt, 0}},
                      AcceptCase{"share from the account",
                                 Job().account("Research").partitions({"p5"}),
                                 Submission{"research", 50, std::nullopt, 0}},
                      AcceptCase{"share names ignore case",
                                 Job().share("PRODEXP2").partitions({"p4", "p5"}),
                                 Submission{"prodexp2", 50, std::nullopt, 0}},
                      AcceptCase{"every flag",
                                 Job()
                                     .share("prodexp1")
                                     .priority("80")
                                     .image("llama@sha256:" + kDigest)
                                     .keep_alive("900")
                                     .partitions({"p4"}),
                                 Submission{"prodexp1", 80, ImageRef{"llama", kDigest}, 900}},
                      AcceptCase{"keep-alive at MaxKeepAlive",
                                 Job().share("prodexp1").keep_alive("3600").partitions({"p4"}),
                                 Submission{"prodexp1", 50, std::nullopt, 3600}},
                      AcceptCase{"partitions outside any family are ignored",
                                 Job().share("research").partitions({"debug", "p5"}),
                                 Submission{"research", 50, std::nullopt, 0}},
                      AcceptCase{"ungoverned job gets no share",
                                 Job().account("physics").priority("3").partitions({"debug"}),
                                 Submission{"", 3, std::nullopt, 0}},
                      AcceptCase{"job without partitions is ungoverned", Job().account("physics"),
                                 Submission{"", 50, std::nullopt, 0}}),
    [](const ::testing::TestParamInfo<AcceptCase>& info) {
      std::string name;
      for (char c : info.param.scenario)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

struct RefuseCase {
  std::string scenario;
  Job job;
  std::string error;  // the whole Error::to_string()
  friend void PrintTo(const RefuseCase& c, std::ostream* os) { *os << c.scenario; }
};

class RefusedTest : public ::testing::TestWithParam<RefuseCase> {};

TEST_P(RefusedTest, SaysWhy) {
  const Result<Submission> result = GetParam().job.validate(cluster());
  ASSERT_FALSE(result.ok()) << GetParam().scenario;
  EXPECT_EQ(result.error().to_string(), GetParam().error) << GetParam().scenario;
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, RefusedTest,
    ::testing::Values(
        RefuseCase{
            "unknown share", Job().share("foo").partitions({"p4"}),
            "--share: no share \"foo\" in shareq.conf; shares: prodexp1, prodexp2, research"},
        RefuseCase{"no share and no account", Job().partitions({"p4"}),
                   "--share: the job has no --share and no account; shares: prodexp1, prodexp2, "
                   "research"},
        RefuseCase{"share lacks a quota in the family", Job().share("research").partitions({"p4"}),
                   "--share: share \"research\" has no quota in family p4 (partition p4); shares "
                   "in p4: prodexp1, prodexp2"},
        RefuseCase{"share lacks a quota in the second partition",
                   Job().share("prodexp1").partitions({"p4", "p5"}),
                   "--share: share \"prodexp1\" has no quota in family p5 (partition p5); shares "
                   "in p5: prodexp2, research"},
        RefuseCase{"--share on an ungoverned job", Job().share("research").partitions({"debug"}),
                   "--share: shareq governs none of the job's partitions (debug), so --share "
                   "means nothing there; partitions with shares: p4, p5"},
        RefuseCase{"bad share name", Job().share("a/b").partitions({"p4"}),
                   "--share: \"a/b\" contains \"/\"; a share is a Slurm account name, 1..64 "
                   "characters of [A-Za-z0-9_.-]"},
        RefuseCase{"priority out of range",
                   Job().share("research").priority("100").partitions({"p5"}),
                   "--share-priority: 100 is out of range; allowed: 0..99"},
        RefuseCase{"priority not a number",
                   Job().share("research").priority("abc").partitions({"p5"}),
                   "--share-priority: \"abc\" is not an integer; allowed: 0..99"},
        RefuseCase{"keep-alive above MaxKeepAlive",
                   Job().share("research").keep_alive("7200").partitions({"p5"}),
                   "--keep-alive: 7200 is above MaxKeepAlive=3600; allowed: 0..3600 seconds"},
        RefuseCase{"bad image", Job().share("research").image("a/b").partitions({"p5"}),
                   "--image: \"a/b\" contains \"/\"; an image is a plain name [A-Za-z0-9_.:+-], "
                   "optionally @sha256:<64 hex digits>"}),
    [](const ::testing::TestParamInfo<RefuseCase>& info) {
      std::string name;
      for (char c : info.param.scenario)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(ValidateSubmission, ASubAccountBelongsToTheNearestShareAboveIt) {
  // research-vision -> research -> physics (a share too, but further up).
  const Config config = testing::must_parse(
      "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
      "Share=Research Family=p5 Quota=gres/gpu=16\n"
      "Share=Physics Family=p5 Quota=gres/gpu=8\n");
  const Job job =
      Job().account("research-vision").parents({"Research", "physics"}).partitions({"p5"});
  const Result<Submission> result = job.validate(config);
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(result.value().share, "research");
  const Result<Submission> deeper =
      Job().account("a").parents({"b", "physics"}).partitions({"p5"}).validate(config);
  ASSERT_TRUE(deeper.ok()) << deeper.error().to_string();
  EXPECT_EQ(deeper.value().share, "physics");
}

TEST(ValidateSubmission, AnAccountListedItselfIsItsOwnShare) {
  const Result<Submission> result =
      Job().account("ProdExp2").parents({"prodexp1"}).partitions({"p4"}).validate(cluster());
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(result.value().share, "prodexp2");
}

TEST(ValidateSubmission, ASubAccountNeedsItsSharesQuotaInTheFamily) {
  const Result<Submission> result =
      Job().account("research-vision").parents({"research"}).partitions({"p4"}).validate(cluster());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().to_string(),
            "--share: share \"research\" has no quota in family p4 (partition p4); shares in p4: "
            "prodexp1, prodexp2");
}

TEST(ValidateSubmission, AnAccountUnderNoShareBorrowsByDefault) {
  const Result<Submission> result =
      Job().account("Physics").parents({"science"}).partitions({"p4"}).validate(cluster());
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(result.value().share, kUnlistedShare);
}

TEST(ValidateSubmission, AnAccountUnderNoShareIsRefusedWhenConfigured) {
  const Config config =
      testing::must_parse(std::string(testing::kClusterConf) + "UnlistedAccounts=refuse\n");
  const Result<Submission> result =
      Job().account("Physics").parents({"science"}).partitions({"p4"}).validate(config);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().to_string(),
            "--share: no share \"physics\" in shareq.conf nor any account above it (science), "
            "and UnlistedAccounts=refuse: the job's account must be under a share (use --share "
            "to choose one); shares: prodexp1, prodexp2, research");
}

TEST(ValidateSubmission, AnExplicitShareMustBeListedWhateverTheSetting) {
  const Result<Submission> result =
      Job().share("physics").account("physics").partitions({"p4"}).validate(cluster());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().to_string(),
            "--share: no share \"physics\" in shareq.conf; shares: prodexp1, prodexp2, research");
}

TEST(ValidateSubmission, DefaultPriorityComesFromTheConfig) {
  const Config config =
      testing::must_parse(std::string(testing::kFamiliesOnlyConf) + "DefaultPriority=7\n");
  const Result<Submission> result = Job().account("a").partitions({"p4"}).validate(config);
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(result.value().priority, 7);
}

TEST(ValidateSubmission, MaxKeepAliveComesFromTheConfig) {
  const Config config =
      testing::must_parse(std::string(testing::kFamiliesOnlyConf) + "MaxKeepAlive=2h\n");
  EXPECT_TRUE(Job().account("a").keep_alive("7200").partitions({"p4"}).validate(config).ok());
  EXPECT_FALSE(Job().account("a").keep_alive("7201").partitions({"p4"}).validate(config).ok());
}

TEST(ValidateSubmission, NoSharesAtAll) {
  const Config config = testing::must_parse("Family=p4 Partitions=p4 Capacity=node=4\n");
  EXPECT_EQ(Job().share("x").partitions({"p4"}).validate(config).error().to_string(),
            "--share: no share \"x\" in shareq.conf; shares: none");
}

}  // namespace
}  // namespace shareq
