// The reclaim-claims state file: what slurmctld writes it reads back, and every damaged file is
// refused whole with the line and field at fault (the claimants are then decided afresh).
#include "policy/claims_format.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace shareq::policy {
namespace {

const std::string kHeader = "shareq-reclaim-claims 1\n";

NamedClaim claim(JobId job, std::string share, std::vector<JobId> victims) {
  return NamedClaim{job, std::move(share), "p5", 8, 50, 1700000000, std::move(victims)};
}

TEST(ClaimsFormat, WritesOneLinePerClaimBetweenHeaderAndEnd) {
  const std::vector<NamedClaim> claims = {claim(42, "prodexp1", {17, 18})};
  EXPECT_EQ(format_claims(claims),
            kHeader +
                "claim job=42 share=prodexp1 family=p5 amount=8 priority=50 since=1700000000 "
                "victims=17,18\nend\n");
}

TEST(ClaimsFormat, ReadsBackWhatItWrote) {
  const std::vector<NamedClaim> claims = {claim(42, "prodexp1", {17, 18}),
                                          claim(43, "research", {19})};
  const auto parsed = parse_claims(format_claims(claims));
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed.value(), claims);
}

TEST(ClaimsFormat, NoClaimsIsAnEmptyList) {
  const auto parsed = parse_claims(format_claims({}));
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_TRUE(parsed.value().empty());
}

struct BadFile {
  const char* name;
  std::string text;
  std::string message;  // the whole message after "reclaim claims: "
};

void PrintTo(const BadFile& c, std::ostream* os) { *os << c.name; }

class ClaimsFormatRefuses : public ::testing::TestWithParam<BadFile> {};

TEST_P(ClaimsFormatRefuses, NamingTheLineAndField) {
  const auto parsed = parse_claims(GetParam().text);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().field, "reclaim claims");
  EXPECT_EQ(parsed.error().message, GetParam().message);
}

const std::string kGood =
    "claim job=42 share=prodexp1 family=p5 amount=8 priority=50 since=1700000000 victims=17\n";

INSTANTIATE_TEST_SUITE_P(
    DamagedFiles, ClaimsFormatRefuses,
    ::testing::Values(
        BadFile{"Empty", "", "line 1: truncated (no \"end\" line)"},
        BadFile{"NoEnd", kHeader + kGood, "line 2: truncated (no \"end\" line)"},
        BadFile{"CutMidLine", kHeader + "claim job=42 sha", "line 1: truncated (no \"end\" line)"},
        BadFile{"OtherFile", "shareq-warm-pools 1\nend\n",
                "line 1: not a reclaim-claims file (no \"shareq-reclaim-claims\" header)"},
        BadFile{"NewerVersion", "shareq-reclaim-claims 2\nend\n",
                "line 1: unsupported version \"2\"; this shareq reads 1"},
        BadFile{"NotAClaim", kHeader + "pool id=1\nend\n",
                "line 2: expected \"claim ...\" or \"end\", found \"pool id=1\""},
        BadFile{"MissingField",
                kHeader + "claim job=42 share=a family=p5 amount=8 priority=50 since=1\nend\n",
                "line 2: expected 7 fields (job share family amount priority since victims), "
                "found 6"},
        BadFile{"FieldsOutOfOrder",
                kHeader + "claim share=a job=42 family=p5 amount=8 priority=50 since=1 "
                          "victims=1\nend\n",
                "line 2: field 1: expected job=..., found \"share=a\""},
        BadFile{"PriorityAbove99",
                kHeader + "claim job=42 share=a family=p5 amount=8 priority=100 since=1 "
                          "victims=1\nend\n",
                "line 2: priority: 100 is out of range; allowed: 0..99"},
        BadFile{"ZeroAmount",
                kHeader + "claim job=42 share=a family=p5 amount=0 priority=5 since=1 "
                          "victims=1\nend\n",
                "line 2: amount: 0 is out of range; allowed: 1..9223372036854775807"},
        BadFile{"BadShareName",
                kHeader + "claim job=42 share=a/b family=p5 amount=8 priority=5 since=1 "
                          "victims=1\nend\n",
                "line 2: share: unexpected character \"/\"; allowed: letters, digits and _.-"},
        BadFile{"NoVictims",
                kHeader + "claim job=42 share=a family=p5 amount=8 priority=5 since=1 "
                          "victims=\nend\n",
                "line 2: victims: at least one job id"},
        BadFile{"VictimTwice",
                kHeader + "claim job=42 share=a family=p5 amount=8 priority=5 since=1 "
                          "victims=3,3\nend\n",
                "line 2: victims: job 3 appears twice"},
        BadFile{"TwoClaimsOfOneJob", kHeader + kGood + kGood + "end\n",
                "line 3: job: 42 has two claims; a job has at most one"}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace shareq::policy
