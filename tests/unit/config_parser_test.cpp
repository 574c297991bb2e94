#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

using testing::kClusterConf;
using testing::must_parse;

// Two valid families on lines 1 and 2, for cases about Share lines (which then start at line 3).
const std::string kFamilies =
    "Family=p4 Partitions=p4 Capacity=node=4\nFamily=p5 Partitions=p5 Capacity=gres/gpu=32\n";

struct ErrorCase {
  std::string scenario;
  std::string text;
  int line;
  std::string key;
  std::string message_part;  // a part of the message the error must contain
  friend void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.scenario; }
};

std::string all_errors(const ParseResult& parsed) {
  std::string out;
  for (const ConfigError& e : parsed.errors) out += e.to_string() + "\n";
  return out;
}

class ConfigErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrorTest, ReportsFileLineKeyAndWhatIsAllowed) {
  const ErrorCase& c = GetParam();
  const ParseResult parsed = parse_config(c.text, "shareq.conf");
  ASSERT_FALSE(parsed.config.has_value()) << c.scenario;
  const std::string prefix = "shareq.conf:" + std::to_string(c.line) + ": " + c.key + ": ";
  bool found = false;
  for (const ConfigError& e : parsed.errors) {
    const std::string text = e.to_string();
    found = found || (text.rfind(prefix, 0) == 0 && text.find(c.message_part) != std::string::npos);
  }
  EXPECT_TRUE(found) << c.scenario << "\nwanted: " << prefix << "..." << c.message_part
                     << "\ngot:\n"
                     << all_errors(parsed);
}

const std::string kF = kFamilies;

INSTANTIATE_TEST_SUITE_P(
    EveryErrorKind, ConfigErrorTest,
    ::testing::Values(
        ErrorCase{"unknown key at the start of a line", "Bogus=1", 1, "Bogus",
                  "unknown key; a line starts with one of: Family, Share, DefaultPriority, "
                  "InSharePreemption"},
        ErrorCase{"unknown key on a family line", "Family=p4 Partitions=p4 Capacity=node=4 Nodes=3",
                  1, "Nodes",
                  "unknown key on a Family line; allowed: Family, Partitions, Capacity, Hardware"},
        ErrorCase{"unknown key on a share line", kF + "Share=a Family=p4 Quota=node=1 Borrow=2", 3,
                  "Borrow",
                  "unknown key on a Share line; allowed: Share, Family, Quota, BorrowLimit, "
                  "LendLimit"},
        ErrorCase{"unprintable key is quoted", "Fo\x01o=1", 1, "\"Fo\\x01o\"", "unknown key"},
        ErrorCase{"word without equals sign", "Family=p4 Partitions=p4 Capacity=node=4 oops", 1,
                  "oops", "\"oops\" is not Key=Value"},
        ErrorCase{"record key not first", "Partitions=p4 Family=p4 Capacity=node=4", 1,
                  "Partitions", "belongs on a Family line"},
        ErrorCase{"quota line without share", "Quota=node=4", 1, "Quota",
                  "belongs on a Share line"},
        ErrorCase{"duplicate family", kF + "Family=p4 Partitions=p6 Capacity=node=1", 3, "Family",
                  "duplicate Family=p4 (first on line 1)"},
        ErrorCase{"duplicate share ignores case",
                  kF + "Share=Research Family=p5 Quota=gres/gpu=1\n"
                       "Share=research Family=p5 Quota=gres/gpu=1",
                  4, "Share", "duplicate Share=research in family p5 (first on line 3)"},
        ErrorCase{"share of an undefined family", kF + "Share=a Family=p9 Quota=node=1", 3,
                  "Family", "no family \"p9\" in this file; families: p4, p5"},
        ErrorCase{"share with no family at all", "Share=a Family=p9 Quota=node=1", 1, "Family",
                  "families: none"},
        ErrorCase{"family without partitions", "Family=p4 Capacity=node=4", 1, "Partitions",
                  "missing; a Family line is"},
        ErrorCase{"family without capacity", "Family=p4 Partitions=p4", 1, "Capacity", "missing"},
        ErrorCase{"share without family", kF + "Share=a Quota=node=1", 3, "Family", "missing"},
        ErrorCase{"share without quota", kF + "Share=a Family=p4", 3, "Quota", "missing"},
        ErrorCase{"quotas over capacity, reported on the crossing line",
                  kF + "Share=a Family=p4 Quota=node=3\nShare=b Family=p4 Quota=node=2\n"
                       "Share=c Family=p4 Quota=node=0",
                  4, "Quota", "quotas of family p4 sum to 5, over its Capacity=node=4"},
        ErrorCase{"quota in gpus for a node family", kF + "Share=a Family=p4 Quota=gres/gpu=8", 3,
                  "Quota", "\"gres/gpu=8\" is in gres/gpu but family p4 counts node"},
        ErrorCase{"quota in nodes for a gpu family", kF + "Share=a Family=p5 Quota=node=1", 3,
                  "Quota", "allowed: gres/gpu=N"},
        ErrorCase{"borrow limit in the wrong unit",
                  kF + "Share=a Family=p4 Quota=node=1 BorrowLimit=gres/gpu=1", 3, "BorrowLimit",
                  "but the family counts node"},
        ErrorCase{"negative quota", kF + "Share=a Family=p4 Quota=node=-1", 3, "Quota",
                  "\"-1\" is negative"},
        ErrorCase{"non-numeric capacity", "Family=p4 Partitions=p4 Capacity=node=abc", 1,
                  "Capacity", "\"abc\" is not an integer"},
        ErrorCase{"overflowing capacity",
                  "Family=p4 Partitions=p4 Capacity=node=99999999999999999999", 1, "Capacity",
                  "99999999999999999999 is out of range"},
        ErrorCase{"zero capacity", "Family=p4 Partitions=p4 Capacity=node=0", 1, "Capacity",
                  "is not above 0"},
        ErrorCase{"unknown unit", "Family=p4 Partitions=p4 Capacity=cpu=4", 1, "Capacity",
                  "unknown unit \"cpu\"; allowed: node=N or gres/gpu=N"},
        ErrorCase{"capacity without unit", "Family=p4 Partitions=p4 Capacity=4", 1, "Capacity",
                  "\"4\" is not an amount"},
        ErrorCase{"partition in two families",
                  "Family=a Partitions=x Capacity=node=1\nFamily=b Partitions=y,x Capacity=node=1",
                  2, "Partitions", "partition x is already in family a (line 1)"},
        ErrorCase{"partition twice in one family", "Family=a Partitions=x,x Capacity=node=1", 1,
                  "Partitions", "partition x is already in family a"},
        ErrorCase{"empty partition in list", "Family=a Partitions=x,,y Capacity=node=1", 1,
                  "Partitions", "empty partition name"},
        ErrorCase{"bad family name", "Family=a/b Partitions=x Capacity=node=1", 1, "Family",
                  "\"a/b\" is not a family name"},
        ErrorCase{"bad share name", kF + "Share=a/b Family=p4 Quota=node=1", 3, "Share",
                  "\"a/b\" contains \"/\""},
        ErrorCase{"global key given twice", "DefaultPriority=1\nDefaultPriority=2", 2,
                  "DefaultPriority", "given twice (first on line 1)"},
        ErrorCase{"global key twice in other case", "defaultpriority=1\nDEFAULTPRIORITY=2", 2,
                  "DefaultPriority", "given twice"},
        ErrorCase{"key twice on one line",
                  "Family=p4 Partitions=p4 Capacity=node=4 capacity=node=5", 1, "Capacity",
                  "given twice on this line"},
        ErrorCase{"global key not alone", "DefaultPriority=5 MaxKeepAlive=10", 1, "MaxKeepAlive",
                  "a setting stands alone on its line"},
        ErrorCase{"percentage above 100", kF + "Share=a Family=p4 Quota=node=1 LendLimit=101%", 3,
                  "LendLimit", "101% is out of range; allowed: UNLIMITED, P% of the quota"},
        ErrorCase{"negative percentage", kF + "Share=a Family=p4 Quota=node=1 LendLimit=-1%", 3,
                  "LendLimit", "is negative"},
        ErrorCase{"limit not a limit", kF + "Share=a Family=p4 Quota=node=1 BorrowLimit=lots", 3,
                  "BorrowLimit", "\"lots\" is not a limit"},
        ErrorCase{"weight not a number", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=high", 3,
                  "BorrowWeight",
                  "\"high\" is not a plain decimal number; allowed: a number from 0.001 to 1000"},
        ErrorCase{"weight zero", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=0", 3,
                  "BorrowWeight", "\"0\" is out of range; allowed: a number from 0.001 to 1000"},
        ErrorCase{"weight below the least",
                  kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=0.0004", 3, "BorrowWeight",
                  "has more than 3 decimals"},
        ErrorCase{"weight above 1000", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=1000.001",
                  3, "BorrowWeight", "\"1000.001\" is out of range"},
        ErrorCase{"weight huge",
                  kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=99999999999999999999", 3,
                  "BorrowWeight", "is out of range"},
        ErrorCase{"weight negative", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=-1", 3,
                  "BorrowWeight", "is not a plain decimal number"},
        ErrorCase{"weight exponent", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=1e3", 3,
                  "BorrowWeight", "is not a plain decimal number"},
        ErrorCase{"weight bare dot", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=1.", 3,
                  "BorrowWeight", "is not a plain decimal number"},
        ErrorCase{"weight leading dot", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=.5", 3,
                  "BorrowWeight", "is not a plain decimal number"},
        ErrorCase{"weight nan", kF + "Share=a Family=p4 Quota=node=1 BorrowWeight=nan", 3,
                  "BorrowWeight", "is not a plain decimal number"},
        ErrorCase{"weight as a global", "BorrowWeight=2", 1, "BorrowWeight",
                  "belongs on a Share line"},
        ErrorCase{"empty record value", "Family=p4 Partitions= Capacity=node=4", 1, "Partitions",
                  "empty value"},
        ErrorCase{"empty global value", "MaxKeepAlive=", 1, "MaxKeepAlive",
                  "empty value; allowed: a non-negative number of seconds"},
        ErrorCase{"priority above 99", "DefaultPriority=100", 1, "DefaultPriority",
                  "100 is out of range; allowed: 0..99"},
        ErrorCase{"priority negative", "DefaultPriority=-1", 1, "DefaultPriority", "is negative"},
        ErrorCase{"boolean not in the list", "InSharePreemption=maybe", 1, "InSharePreemption",
                  "\"maybe\" is not a boolean; allowed: yes, no, true, false, 1, 0, on, off"},
        ErrorCase{"runtime with suffix", "ReclaimMinRuntime=10m", 1, "ReclaimMinRuntime",
                  "\"10m\" is not an integer"},
        ErrorCase{"negative grace time", "PreemptGraceTime=-5", 1, "PreemptGraceTime",
                  "is negative"},
        ErrorCase{"reclaim wait with suffix", "ReclaimAfter=1m", 1, "ReclaimAfter",
                  "\"1m\" is not an integer"},
        ErrorCase{"unknown duration suffix", "MaxWarmPoolLifetime=28x", 1, "MaxWarmPoolLifetime",
                  "\"28x\" is not an integer"},
        ErrorCase{"bare duration suffix", "MaxKeepAlive=d", 1, "MaxKeepAlive",
                  "\"d\" is not an integer"},
        ErrorCase{"duration overflows", "MaxKeepAlive=999999999999999d", 1, "MaxKeepAlive",
                  "out of range"},
        ErrorCase{"unknown pool mode", "WarmPoolMode=fast", 1, "WarmPoolMode",
                  "allowed: prefer, reserve"},
        ErrorCase{"unknown unlisted accounts choice", "UnlistedAccounts=maybe", 1,
                  "UnlistedAccounts", "\"maybe\" is not a choice; allowed: borrow, refuse"},
        ErrorCase{"unknown borrow order", "BorrowOrder=smallest", 1, "BorrowOrder",
                  "\"smallest\" is not a choice; allowed: fairshare, largest"},
        ErrorCase{"unknown match field", "WarmPoolMatch=image,gpu", 1, "WarmPoolMatch",
                  "\"gpu\" is not a field"},
        ErrorCase{"duplicate match field", "WarmPoolMatch=image,IMAGE", 1, "WarmPoolMatch",
                  "image is listed twice"},
        ErrorCase{"empty match field", "WarmPoolMatch=image,,user", 1, "WarmPoolMatch",
                  "empty field"},
        ErrorCase{"relative image store", "ImageStore=srv/images", 1, "ImageStore",
                  "allowed: an absolute directory"},
        ErrorCase{"ftp image store", "ImageStore=ftp://host/images", 1, "ImageStore",
                  "http:// or https:// URL"},
        ErrorCase{"relative cache dir", "ImageCacheDir=var/cache", 1, "ImageCacheDir",
                  "is not an absolute path"},
        ErrorCase{"relative metrics file", "ImageCacheMetricsFile=shareq.prom", 1,
                  "ImageCacheMetricsFile", "allowed: an absolute file path ending in .prom"},
        ErrorCase{"metrics file not .prom", "ImageCacheMetricsFile=/var/lib/shareq.txt", 1,
                  "ImageCacheMetricsFile", "e.g. /var/lib/prometheus/node-exporter/shareq.prom"},
        ErrorCase{"metrics file only .prom", "ImageCacheMetricsFile=/var/lib/.prom", 1,
                  "ImageCacheMetricsFile", "is not a textfile path"},
        ErrorCase{"unknown size suffix", "ImageCacheSize=10P", 1, "ImageCacheSize",
                  "\"10P\" is not an integer"},
        ErrorCase{"size overflows", "ImageCacheSize=9999999999T", 1, "ImageCacheSize",
                  "out of range"},
        // 0 would read as "no limit": a prolog waiting on a store for ever (ImageFetchTimeout).
        ErrorCase{"fetch timeout zero", "ImageFetchTimeout=0", 1, "ImageFetchTimeout",
                  "0 is out of range; allowed: 1 to 86400 seconds (1d), optionally with suffix s, "
                  "m, h or d"},
        ErrorCase{"fetch timeout over a day", "ImageFetchTimeout=25h", 1, "ImageFetchTimeout",
                  "25h is out of range; allowed: 1 to 86400 seconds (1d)"},
        ErrorCase{"fetch timeout not a duration", "ImageFetchTimeout=soon", 1, "ImageFetchTimeout",
                  "\"soon\" is not an integer; allowed: 1 to 86400 seconds (1d)"},
        ErrorCase{"fetch timeout negative", "ImageFetchTimeout=-5m", 1, "ImageFetchTimeout",
                  "is negative; allowed: 1 to 86400 seconds (1d)"},
        ErrorCase{"fetch timeout overflows", "ImageFetchTimeout=999999999999999d", 1,
                  "ImageFetchTimeout", "out of range; allowed: 1 to 86400 seconds (1d)"},
        // A limit's allowed list is the limit's, in the family's unit.
        ErrorCase{"borrow limit amount overflows",
                  kF + "Share=a Family=p4 Quota=node=1 BorrowLimit=node=9223372036854775808", 3,
                  "BorrowLimit",
                  "9223372036854775808 is out of range; allowed: UNLIMITED, P% of the quota (P in "
                  "0..100), or node=N (N in 0..9223372036854775807)"},
        ErrorCase{"borrow limit amount empty",
                  kF + "Share=a Family=p4 Quota=node=1 BorrowLimit=node=", 3, "BorrowLimit",
                  "is empty; allowed: UNLIMITED, P% of the quota (P in 0..100), or node=N (N in"},
        ErrorCase{"lend limit unknown unit in a gpu family",
                  kF + "Share=a Family=p5 Quota=gres/gpu=1 LendLimit=cpu=2", 3, "LendLimit",
                  "unknown unit \"cpu\"; allowed: UNLIMITED, P% of the quota (P in 0..100), or "
                  "gres/gpu=N (N in"},
        ErrorCase{"lend limit not a number",
                  kF + "Share=a Family=p5 Quota=gres/gpu=1 LendLimit=gres/gpu=x", 3, "LendLimit",
                  "\"x\" is not an integer; allowed: UNLIMITED, P% of the quota (P in 0..100), or "
                  "gres/gpu=N"},
        ErrorCase{"quota not a number names the family's unit",
                  kF + "Share=a Family=p4 Quota=node=x", 3, "Quota",
                  "\"x\" is not an integer; allowed: node=N, N a non-negative integer (the unit of "
                  "family p4)"},
        // Words that are not Key=Value: the space hint only after a Key=Value word.
        ErrorCase{"section header", "[Family]", 1, "\"[Family]\"",
                  "\"[Family]\" is not Key=Value; a line is Key=Value words separated by spaces"},
        ErrorCase{"no key before equals", "=5", 1, "\"\"",
                  "\"=5\" has no key before \"=\"; a line is Key=Value words"},
        ErrorCase{"minus zero", "DefaultPriority=-0", 1, "DefaultPriority",
                  "\"-0\" is not a whole number without a sign; allowed: 0..99"},
        ErrorCase{"minus zero with a suffix", "MaxKeepAlive=-0m", 1, "MaxKeepAlive",
                  "\"-0m\" is not a whole number without a sign"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) {
      std::string name;
      for (char c : info.param.scenario)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(ConfigParser, ReadsTheClusterConfiguration) {
  const Config config = must_parse(kClusterConf);
  ASSERT_EQ(config.families.size(), 2u);
  EXPECT_EQ(config.families[0].name, "p4");
  EXPECT_EQ(config.families[0].unit, Unit::Node);
  EXPECT_EQ(config.families[0].capacity, 4);
  EXPECT_EQ(config.families[1].unit, Unit::Gpu);
  EXPECT_EQ(config.families[1].capacity, 32);
  EXPECT_EQ(config.families[1].line, 2);
  ASSERT_EQ(config.shares.size(), 4u);
  EXPECT_EQ(config.shares[1].share, "ProdExp2");
  EXPECT_EQ(config.shares[1].borrow_limit, (Limit{Limit::Kind::Amount, 2}));
  EXPECT_EQ(config.shares[1].lend_limit, (Limit{Limit::Kind::PercentOfQuota, 50}));
  EXPECT_EQ(config.shares[0].borrow_limit, Limit{});
  EXPECT_EQ(config.shares[3].line, 6);
  EXPECT_EQ(config.file, "shareq.conf");
}

TEST(ConfigParser, DefaultsFromTheHeader) {
  const Config config = must_parse("");
  const Config defaults;
  EXPECT_TRUE(equivalent(config, defaults));
  EXPECT_TRUE(config.families.empty());
  EXPECT_EQ(config.max_warm_pool_lifetime_s, 28 * 86400);
  EXPECT_EQ(config.image_cache_size_bytes, 200LL << 30);
}

TEST(ConfigParser, FileWithoutFamilyIsValid) {
  const Config config = must_parse("# nothing governed\nDefaultPriority=10\n");
  EXPECT_TRUE(config.families.empty());
  EXPECT_EQ(config.default_priority, 10);
}

TEST(ConfigParser, KeysAndUnitsIgnoreCaseCommentsAndBlankLinesAreSkipped) {
  const Config config = must_parse(
      "  # comment\r\n\r\nfamily=p4 PARTITIONS=p4 capacity=NODE=4   # trailing comment\r\n"
      "\tshare=A family=p4 quota=Node=1 borrowlimit=unlimited\n"
      "warmpoolmode=RESERVE\nunlistedaccounts=Refuse\nborroworder=LARGEST\n");
  ASSERT_EQ(config.shares.size(), 1u);
  EXPECT_EQ(config.families[0].capacity, 4);
  EXPECT_EQ(config.warm_pool_mode, WarmPoolMode::Reserve);
  EXPECT_EQ(config.unlisted_accounts, UnlistedAccounts::Refuse);
  EXPECT_EQ(must_parse(kClusterConf).unlisted_accounts, UnlistedAccounts::Borrow);  // default
  EXPECT_EQ(config.borrow_order, BorrowOrder::Largest);
  EXPECT_EQ(must_parse(kClusterConf).borrow_order, BorrowOrder::FairShare);  // default
}

TEST(ConfigParser, SameShareInTwoFamiliesIsFine) {
  const Config config = must_parse(kClusterConf);
  EXPECT_NE(config.find_quota("prodexp2", "p4"), nullptr);
  EXPECT_NE(config.find_quota("PRODEXP2", "p5"), nullptr);
  EXPECT_EQ(config.find_quota("prodexp1", "p5"), nullptr);
}

TEST(ConfigParser, QuotasMayFillTheCapacityExactly) {
  must_parse(kFamilies + "Share=a Family=p4 Quota=node=4\nShare=b Family=p4 Quota=node=0\n");
}

TEST(ConfigParser, SharesMayComeBeforeTheirFamily) {
  const Config config = must_parse("Share=a Family=p4 Quota=node=1\n" + kFamilies);
  EXPECT_EQ(config.shares.size(), 1u);
}

TEST(ConfigParser, CollectsEveryErrorInFileOrder) {
  const ParseResult parsed = parse_config(
      "Share=a Family=p9 Quota=node=1\nDefaultPriority=100\nBogus=1\nMaxKeepAlive=x\n", "f");
  ASSERT_EQ(parsed.errors.size(), 4u) << all_errors(parsed);
  EXPECT_EQ(parsed.errors[0].line, 1);
  EXPECT_EQ(parsed.errors[1].line, 2);
  EXPECT_EQ(parsed.errors[2].line, 3);
  EXPECT_EQ(parsed.errors[3].line, 4);
}

TEST(ConfigParser, QuotaSumIsReportedOncePerFamily) {
  const ParseResult parsed =
      parse_config(kFamilies +
                       "Share=a Family=p4 Quota=node=4\nShare=b Family=p4 Quota=node=1\n"
                       "Share=c Family=p4 Quota=node=1\n",
                   "f");
  ASSERT_EQ(parsed.errors.size(), 1u) << all_errors(parsed);
  EXPECT_EQ(parsed.errors[0].line, 4);
}

TEST(ConfigParser, QuotaSumDoesNotOverflow) {
  const ParseResult parsed = parse_config(
      "Family=f Partitions=f Capacity=node=9223372036854775807\n"
      "Share=a Family=f Quota=node=9223372036854775807\nShare=b Family=f Quota=node=1\n"
      "Share=c Family=f Quota=node=9223372036854775807\n",
      "f");
  ASSERT_EQ(parsed.errors.size(), 1u) << all_errors(parsed);
  EXPECT_EQ(parsed.errors[0].to_string(),
            "f:3: Quota: quotas of family f sum to 9223372036854775808, over its "
            "Capacity=node=9223372036854775807; the quotas of a family must fit in its capacity");
  // The largest sum there can be at the crossing: capacity plus the largest quota.
  const ParseResult huge = parse_config(
      "Family=f Partitions=f Capacity=node=9223372036854775807\n"
      "Share=a Family=f Quota=node=9223372036854775807\n"
      "Share=b Family=f Quota=node=9223372036854775807\n",
      "f");
  ASSERT_EQ(huge.errors.size(), 1u) << all_errors(huge);
  EXPECT_NE(huge.errors[0].message.find("sum to 18446744073709551614, over"), std::string::npos)
      << huge.errors[0].message;
}

// One error on a Family line hides no error of its Share lines, and causes none.
TEST(ConfigParser, FamilyErrorsHideNoShareErrors) {
  const ParseResult parsed = parse_config(
      "Family=p4 Partitions=p4 Capacity=node=abc\n"
      "Share=a Family=p4 Quota=node=xyz BorrowLimit=lots LendLimit=200%\n"
      "Share=A Family=p4 Quota=node=1\n"
      "Share=b Family=p4 Quota=node=1 BorrowLimit=node=2\n",
      "f");
  EXPECT_EQ(all_errors(parsed),
            "f:1: Capacity: \"abc\" is not an integer; allowed: node=N or gres/gpu=N, N a "
            "non-negative integer\n"
            "f:2: Quota: \"xyz\" is not an integer; allowed: node=N or gres/gpu=N, N a "
            "non-negative integer, in the family's unit\n"
            "f:2: BorrowLimit: \"lots\" is not a limit; allowed: UNLIMITED, P% of the quota (P in "
            "0..100), or node=N or gres/gpu=N, in the family's unit (N in "
            "0..9223372036854775807)\n"
            "f:2: LendLimit: 200% is out of range; allowed: UNLIMITED, P% of the quota (P in "
            "0..100), or node=N or gres/gpu=N, in the family's unit (N in "
            "0..9223372036854775807)\n"
            "f:3: Share: duplicate Share=A in family p4 (first on line 2); share names ignore "
            "case, one Share line per share and family\n");
}

TEST(ConfigParser, FamilyWithOtherErrorsStillHasItsUnitForItsShares) {
  const ParseResult parsed = parse_config(
      "Family=p5 Partitions=p5,p5 Capacity=gres/gpu=8\n"
      "Share=a Family=p5 Quota=node=1 LendLimit=node=1\n"
      "Share=b Family=p5 Quota=gres/gpu=99 BorrowLimit=gres/gpu=2\n"
      "Family=bad/name Partitions=x Capacity=node=1\n"
      "Share=c Family=bad/name Quota=node=1\n",
      "f");
  const std::string errors = all_errors(parsed);
  ASSERT_EQ(parsed.errors.size(), 4u) << errors;
  EXPECT_EQ(parsed.errors[0].key, "Partitions");
  EXPECT_EQ(parsed.errors[1].to_string().rfind(
                "f:2: Quota: \"node=1\" is in node but family p5 counts gres/gpu", 0),
            0u)
      << errors;
  EXPECT_EQ(parsed.errors[2].to_string().rfind(
                "f:2: LendLimit: \"node=1\" is in node but the family counts gres/gpu", 0),
            0u)
      << errors;
  // No quota sum against a capacity that is not in force, no "no family" for a bad name.
  EXPECT_EQ(parsed.errors[3].key, "Family") << errors;
  EXPECT_EQ(parsed.errors[3].line, 4) << errors;
}

TEST(ConfigParser, ShareLineErrorsAreAllReportedWithoutFamilyOrQuota) {
  const ParseResult parsed =
      parse_config(kFamilies + "Share=a Quota=node=x LendLimit=101%\nShare=b/c Family=p4\n", "f");
  const std::string errors = all_errors(parsed);
  EXPECT_NE(errors.find("f:3: Family: missing"), std::string::npos) << errors;
  EXPECT_NE(errors.find("f:3: Quota: \"x\" is not an integer"), std::string::npos) << errors;
  EXPECT_NE(errors.find("f:3: LendLimit: 101% is out of range"), std::string::npos) << errors;
  EXPECT_NE(errors.find("f:4: Share: \"b/c\" contains \"/\""), std::string::npos) << errors;
  EXPECT_NE(errors.find("f:4: Quota: missing"), std::string::npos) << errors;
  EXPECT_EQ(parsed.errors.size(), 5u) << errors;
}

TEST(ConfigParser, LongKeysAreCutLikeValues) {
  const ParseResult parsed = parse_config(std::string(100000, 'K') + "=1\n", "f");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].key, "\"" + std::string(64, 'K') + "...\"");
  EXPECT_LT(parsed.errors[0].to_string().size(), 500u);  // the key list is most of it
  // A key of 64 characters is shown as written.
  EXPECT_EQ(parse_config(std::string(64, 'K') + "=1", "f").errors[0].key, std::string(64, 'K'));
}

TEST(ConfigParser, LeadingUtf8ByteOrderMarkIsSkipped) {
  const Config config = must_parse("\xEF\xBB\xBF" + kFamilies + "DefaultPriority=7\n");
  EXPECT_EQ(config.families.size(), 2u);
  EXPECT_EQ(config.default_priority, 7);
  // Only at the start of the file.
  EXPECT_FALSE(parse_config("DefaultPriority=7\n\xEF\xBB\xBF"
                            "Bogus=1\n",
                            "f")
                   .config);
}

TEST(ConfigParser, OldMacLineEndsAreLineEnds) {
  const ParseResult parsed =
      parse_config("Family=p4 Partitions=p4 Capacity=node=4\rDefaultPriority=7\rBogus=1\r", "f");
  ASSERT_EQ(parsed.errors.size(), 1u) << all_errors(parsed);
  EXPECT_EQ(parsed.errors[0].line, 3);
  const Config config = must_parse("Family=p4 Partitions=p4 Capacity=node=4\rDefaultPriority=7\r");
  EXPECT_EQ(config.default_priority, 7);
  // "\r\n" is one line end.
  EXPECT_EQ(parse_config("DefaultPriority=7\r\n\r\nBogus=1\r\n", "f").errors[0].line, 3);
}

TEST(ConfigParser, SpaceHintOnlyWhereAValueMayHaveHadASpace) {
  const ParseResult inside = parse_config("ImageStore=/srv/my images\n", "f");
  ASSERT_EQ(inside.errors.size(), 1u) << all_errors(inside);
  EXPECT_EQ(inside.errors[0].to_string(),
            "f:1: images: \"images\" is not Key=Value; values cannot contain spaces");
  const ParseResult alone = parse_config("[Family]\n", "f");
  ASSERT_EQ(alone.errors.size(), 1u);
  EXPECT_EQ(alone.errors[0].message.find("values cannot contain spaces"), std::string::npos);
}

TEST(ConfigParser, NonRegularFileIsRefusedBeforeAnyRead) {
  const ParseResult parsed = load_config_file("/");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].to_string(),
            "/: is a directory, not a regular file; allowed: a regular file (or a symbolic link "
            "to one)");
}

TEST(ConfigParser, ErrorFormat) {
  EXPECT_EQ((ConfigError{"/etc/slurm/shareq.conf", 7, "Quota", "bad"}).to_string(),
            "/etc/slurm/shareq.conf:7: Quota: bad");
  EXPECT_EQ((ConfigError{"shareq.conf", 0, "Family", "bad"}).to_string(),
            "shareq.conf: Family: bad");
}

TEST(ConfigParser, UnreadableFileIsOneErrorOnLineZero) {
  const ParseResult parsed = load_config_file("/nonexistent/shareq.conf");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].line, 0);
  EXPECT_EQ(parsed.errors[0].to_string(),
            "/nonexistent/shareq.conf: cannot read: No such file or directory");
}

struct SettingCase {
  std::string line;
  int64_t (*get)(const Config&);
  int64_t expected;
  friend void PrintTo(const SettingCase& c, std::ostream* os) { *os << c.line; }
};

class GlobalSettingTest : public ::testing::TestWithParam<SettingCase> {};

TEST_P(GlobalSettingTest, ParsesTheValue) {
  const Config config = must_parse(GetParam().line);
  EXPECT_EQ(GetParam().get(config), GetParam().expected) << GetParam().line;
}

int64_t keep_alive(const Config& c) { return c.max_keep_alive_s; }
int64_t lifetime(const Config& c) { return c.max_warm_pool_lifetime_s; }
int64_t cache_size(const Config& c) { return c.image_cache_size_bytes; }
int64_t preemption(const Config& c) { return c.in_share_preemption ? 1 : 0; }
int64_t priority(const Config& c) { return c.default_priority; }
int64_t reclaim(const Config& c) { return c.reclaim_min_runtime_s; }
int64_t reclaim_after(const Config& c) { return c.reclaim_after_s; }
int64_t fetch_timeout(const Config& c) { return c.image_fetch_timeout_s; }

INSTANTIATE_TEST_SUITE_P(
    Values, GlobalSettingTest,
    ::testing::Values(SettingCase{"MaxWarmPoolLifetime=28d", lifetime, 28 * 86400},
                      SettingCase{"MaxWarmPoolLifetime=0", lifetime, 0},
                      SettingCase{"MaxKeepAlive=90m", keep_alive, 5400},
                      SettingCase{"MaxKeepAlive=2h", keep_alive, 7200},
                      SettingCase{"MaxKeepAlive=45s", keep_alive, 45},
                      SettingCase{"MaxKeepAlive=600", keep_alive, 600},
                      SettingCase{"ImageCacheSize=200G", cache_size, 200LL << 30},
                      SettingCase{"ImageCacheSize=1536k", cache_size, 1536LL << 10},
                      SettingCase{"ImageCacheSize=2T", cache_size, 2LL << 40},
                      SettingCase{"ImageCacheSize=5M", cache_size, 5LL << 20},
                      SettingCase{"ImageCacheSize=1000", cache_size, 1000},
                      SettingCase{"ImageFetchTimeout=45m", fetch_timeout, 2700},
                      SettingCase{"ImageFetchTimeout=1", fetch_timeout, 1},
                      SettingCase{"ImageFetchTimeout=1d", fetch_timeout, 86400},
                      SettingCase{"imagefetchtimeout=90S", fetch_timeout, 90},
                      SettingCase{"InSharePreemption=No", preemption, 0},
                      SettingCase{"InSharePreemption=off", preemption, 0},
                      SettingCase{"InSharePreemption=0", preemption, 0},
                      SettingCase{"InSharePreemption=FALSE", preemption, 0},
                      SettingCase{"InSharePreemption=yes", preemption, 1},
                      SettingCase{"InSharePreemption=On", preemption, 1},
                      SettingCase{"InSharePreemption=1", preemption, 1},
                      SettingCase{"InSharePreemption=true", preemption, 1},
                      SettingCase{"DefaultPriority=0", priority, 0},
                      SettingCase{"DefaultPriority=99", priority, 99},
                      SettingCase{"ReclaimMinRuntime=0", reclaim, 0},
                      SettingCase{"ReclaimAfter=0", reclaim_after, 0},
                      SettingCase{"ReclaimAfter=150", reclaim_after, 150}));

TEST(ConfigParser, ImageStoreSchemeIgnoresCase) {
  EXPECT_EQ(must_parse("ImageStore=HTTP://host/x\n").image_store, "http://host/x");
  EXPECT_EQ(must_parse("ImageStore=hTTpS://Host/X\n").image_store, "https://Host/X");
  EXPECT_FALSE(parse_config("ImageStore=HTTP://\n", "f").config);
}

TEST(ConfigParser, StringSettings) {
  const Config config = must_parse(
      "ImageStore=https://images.example.com/shareq\nImageCacheDir=/scratch/cache\n"
      "WarmPoolMatch=user,image\nImageCacheMetricsFile=/var/lib/prometheus/%n.prom\n");
  EXPECT_EQ(config.image_store, "https://images.example.com/shareq");
  EXPECT_EQ(config.image_cache_metrics_file, "/var/lib/prometheus/%n.prom");
  EXPECT_EQ(Config{}.image_cache_metrics_file, "") << "off unless set";
  EXPECT_EQ(config.image_cache_dir, "/scratch/cache");
  EXPECT_EQ(config.warm_pool_match, (std::vector<MatchField>{MatchField::User, MatchField::Image}));
}

// The prolog's time for a job's image is bounded unless the file says otherwise.
TEST(ConfigParser, ImageFetchTimeoutDefaultsToHalfAnHour) {
  EXPECT_EQ(must_parse("ImageStore=/srv/images\n").image_fetch_timeout_s, 1800);
}

TEST(Limit, Resolve) {
  EXPECT_EQ((Limit{}).resolve(10), INT64_MAX);
  EXPECT_EQ((Limit{Limit::Kind::Amount, 3}).resolve(10), 3);
  EXPECT_EQ((Limit{Limit::Kind::PercentOfQuota, 50}).resolve(15), 7);
  EXPECT_EQ((Limit{Limit::Kind::PercentOfQuota, 100}).resolve(INT64_MAX), INT64_MAX);
  EXPECT_EQ((Limit{Limit::Kind::PercentOfQuota, 0}).resolve(100), 0);
}

TEST(ConfigLookups, FamiliesPartitionsAndShares) {
  const Config config = must_parse(kClusterConf);
  ASSERT_NE(config.family_of_partition("p5"), nullptr);
  EXPECT_EQ(config.family_of_partition("p5")->name, "p5");
  EXPECT_EQ(config.family_of_partition("debug"), nullptr);
  EXPECT_NE(config.find_family("p4"), nullptr);
  EXPECT_EQ(config.find_family("p9"), nullptr);
  EXPECT_TRUE(config.has_share("RESEARCH"));
  EXPECT_FALSE(config.has_share("other"));
  EXPECT_EQ(config.share_names(), (std::vector<std::string>{"prodexp1", "prodexp2", "research"}));
  EXPECT_EQ(config.share_names_in("p4"), (std::vector<std::string>{"prodexp1", "prodexp2"}));
  EXPECT_EQ(to_lower("ProdExp1"), "prodexp1");
}

}  // namespace
}  // namespace shareq

namespace shareq {
namespace {

TEST(ShareqConfBeside, SitsBesideSlurmConf) {
  EXPECT_EQ(shareq_conf_beside("/etc/slurm/slurm.conf"), "/etc/slurm/shareq.conf");
  EXPECT_EQ(shareq_conf_beside("/slurm.conf"), "/shareq.conf");
  EXPECT_EQ(shareq_conf_beside("slurm.conf"), "./shareq.conf");
  EXPECT_EQ(shareq_conf_beside("conf/slurm.conf"), "conf/shareq.conf");
}

}  // namespace
}  // namespace shareq
