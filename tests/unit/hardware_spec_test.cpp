#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.hpp"
#include "hardware_spec.hpp"
#include "test_configs.hpp"

namespace shareq {
namespace {

HardwareSpec spec(std::optional<int64_t> gpus, std::optional<int64_t> numa,
                  std::optional<int64_t> cores) {
  return HardwareSpec{gpus, numa, cores};
}

// --- Hardware= values -------------------------------------------------------------------------

TEST(HardwareSpecParse, AllThreeKeysInAnyOrderAndCase) {
  const Result<HardwareSpec> parsed = parse_hardware_spec("CORES=96,gpus=8,Numa=2");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed.value(), spec(8, 2, 96));
  EXPECT_EQ(format_hardware_spec(parsed.value()), "gpus=8,numa=2,cores=96");
}

TEST(HardwareSpecParse, EachKeyIsOptionalAndZeroGpusIsAllowed) {
  EXPECT_EQ(parse_hardware_spec("gpus=0").value(), spec(0, std::nullopt, std::nullopt));
  EXPECT_EQ(parse_hardware_spec("cores=1").value(), spec(std::nullopt, std::nullopt, 1));
  EXPECT_EQ(parse_hardware_spec("numa=1").value(), spec(std::nullopt, 1, std::nullopt));
  EXPECT_EQ(parse_hardware_spec("cores=1000000").value(),
            spec(std::nullopt, std::nullopt, 1000000));
  EXPECT_EQ(format_hardware_spec(spec(std::nullopt, 4, std::nullopt)), "numa=4");
}

struct BadValue {
  std::string scenario;
  std::string value;
  std::string message_part;
  friend void PrintTo(const BadValue& c, std::ostream* os) { *os << c.scenario; }
};

class HardwareSpecError : public ::testing::TestWithParam<BadValue> {};

TEST_P(HardwareSpecError, NamesTheKeyAndWhatIsAllowed) {
  const BadValue& c = GetParam();
  const Result<HardwareSpec> parsed = parse_hardware_spec(c.value);
  ASSERT_FALSE(parsed) << c.scenario;
  EXPECT_EQ(parsed.error().field, "Hardware");
  EXPECT_NE(parsed.error().message.find(c.message_part), std::string::npos)
      << c.scenario << ": " << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("allowed: "), std::string::npos) << parsed.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    EveryErrorKind, HardwareSpecError,
    ::testing::Values(BadValue{"empty", "", "empty value"},
                      BadValue{"unknown key", "gpus=8,sockets=2", "unknown key \"sockets\""},
                      BadValue{"key twice", "gpus=8,GPUS=7", "gpus given twice"},
                      BadValue{"not key=N", "gpus", "\"gpus\" is not key=N"},
                      BadValue{"empty item", "gpus=8,,numa=2", "empty item"},
                      BadValue{"no number", "numa=", "numa has no value"},
                      BadValue{"negative", "cores=-1", "cores: \"-1\" is negative"},
                      BadValue{"not a number", "gpus=eight", "gpus: \"eight\" is not an integer"},
                      BadValue{"too large", "cores=1000001", "cores: 1000001 is out of range"},
                      BadValue{"unit suffix", "gpus=8G", "is not an integer"},
                      // Every node has a NUMA node and a core: 0 would fail every node.
                      BadValue{"no NUMA node", "numa=0",
                               "numa: 0 is out of range (every node has at least one NUMA node); "
                               "allowed: an integer 1..1000000"},
                      BadValue{"no core", "gpus=8,cores=0",
                               "cores: 0 is out of range (every node has at least one core); "
                               "allowed: an integer 1..1000000"},
                      BadValue{"zero written long", "cores=000", "cores: 000 is out of range"},
                      BadValue{"minus zero", "numa=-0",
                               "numa: \"-0\" is not a whole number without a sign"}),
    [](const auto& info) {
      std::string name = info.param.scenario;
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

// --- the Hardware= key on a Family line ---------------------------------------------------------

TEST(HardwareConfig, FamilyLineTakesHardwareAndFormatsItBack) {
  const Config config = testing::must_parse(
      "Family=p5 Partitions=p5 Capacity=gres/gpu=320 Hardware=gpus=8,numa=2,cores=96\n"
      "Family=p4 Partitions=p4 Capacity=node=4\n");
  EXPECT_EQ(config.find_family("p5")->hardware, spec(8, 2, 96));
  EXPECT_TRUE(config.find_family("p4")->hardware.empty());
  const std::string formatted = format_config(config);
  EXPECT_NE(formatted.find("Family=p5 Partitions=p5 Capacity=gres/gpu=320 "
                           "Hardware=gpus=8,numa=2,cores=96\n"),
            std::string::npos)
      << formatted;
  EXPECT_NE(formatted.find("Family=p4 Partitions=p4 Capacity=node=4\n"), std::string::npos);
  const Config again = testing::must_parse(formatted);
  EXPECT_TRUE(equivalent(config, again));
}

TEST(HardwareConfig, DifferentHardwareIsNotEquivalent) {
  const Config a = testing::must_parse("Family=p5 Partitions=p5 Capacity=node=1 Hardware=gpus=8");
  const Config b = testing::must_parse("Family=p5 Partitions=p5 Capacity=node=1 Hardware=gpus=7");
  EXPECT_FALSE(equivalent(a, b));
}

std::vector<std::string> errors_of(const std::string& text) {
  std::vector<std::string> out;
  for (const ConfigError& e : parse_config(text, "shareq.conf").errors)
    out.push_back(e.to_string());
  return out;
}

TEST(HardwareConfig, BadValueNamesFileLineKeyAndAllowedValues) {
  const std::vector<std::string> errors = errors_of(
      "Family=p4 Partitions=p4 Capacity=node=4\n"
      "Family=p5 Partitions=p5 Capacity=gres/gpu=32 Hardware=gpus=8,gpus=7\n");
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0],
            "shareq.conf:2: Hardware: gpus given twice; allowed: a comma-separated list of "
            "gpus=N, numa=N, cores=N (each optional, each once; gpus 0..1000000, numa and cores "
            "1..1000000)");
}

TEST(HardwareConfig, ZeroNumaOrCoresIsRefusedByCheckConfig) {
  const std::vector<std::string> errors =
      errors_of("Family=p5 Partitions=p5 Capacity=node=1 Hardware=numa=0,cores=0\n");
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].rfind("shareq.conf:1: Hardware: numa: 0 is out of range", 0), 0U)
      << errors[0];
}

TEST(HardwareConfig, EmptyTwiceAndMisplacedHardware) {
  EXPECT_EQ(errors_of("Family=p5 Partitions=p5 Capacity=node=1 Hardware=")[0].rfind(
                "shareq.conf:1: Hardware: empty value; a Family line is", 0),
            0U);
  EXPECT_EQ(
      errors_of("Family=p5 Partitions=p5 Capacity=node=1 Hardware=gpus=1 Hardware=numa=1")[0].rfind(
          "shareq.conf:1: Hardware: given twice on this line", 0),
      0U);
  EXPECT_EQ(errors_of("Hardware=gpus=8")[0].rfind(
                "shareq.conf:1: Hardware: belongs on a Family line, after Family=NAME", 0),
            0U);
}

// --- a node's hardware against its family's Hardware= -------------------------------------------

struct CompareCase {
  std::string scenario;
  HardwareFacts facts;
  HardwareSpec expected;
  std::vector<std::string> mismatches;
  friend void PrintTo(const CompareCase& c, std::ostream* os) { *os << c.scenario; }
};

class HardwareCompare : public ::testing::TestWithParam<CompareCase> {};

TEST_P(HardwareCompare, SaysEveryDifferenceInTheIssueWords) {
  const CompareCase& c = GetParam();
  EXPECT_EQ(hardware_mismatches(c.facts, c.expected, "p5"), c.mismatches) << c.scenario;
}

const HardwareSpec kP5 = HardwareSpec{8, 2, 96};

INSTANTIATE_TEST_SUITE_P(
    Scenarios, HardwareCompare,
    ::testing::Values(
        CompareCase{"matching node", {8, 2, 96}, kP5, {}},
        CompareCase{"one GPU missing", {7, 2, 96}, kP5, {"7 GPUs found, family p5 expects 8"}},
        CompareCase{
            "one GPU left is singular", {1, 2, 96}, kP5, {"1 GPU found, family p5 expects 8"}},
        CompareCase{
            "more GPUs than expected", {9, 2, 96}, kP5, {"9 GPUs found, family p5 expects 8"}},
        CompareCase{"no GPUs", {0, 2, 96}, kP5, {"0 GPUs found, family p5 expects 8"}},
        CompareCase{"everything differs, in the order gpus numa cores",
                    {4, 1, 48},
                    kP5,
                    {"4 GPUs found, family p5 expects 8", "1 NUMA node found, family p5 expects 2",
                     "48 cores found, family p5 expects 96"}},
        CompareCase{"keys left out are not checked",
                    {0, 7, 3},
                    HardwareSpec{std::nullopt, 2, std::nullopt},
                    {"7 NUMA nodes found, family p5 expects 2"}},
        CompareCase{"an empty spec matches anything", {1, 1, 1}, HardwareSpec{}, {}},
        CompareCase{"expecting zero GPUs",
                    {1, 2, 96},
                    HardwareSpec{0, std::nullopt, std::nullopt},
                    {"1 GPU found, family p5 expects 0"}},
        CompareCase{"one core", {8, 2, 1}, kP5, {"1 core found, family p5 expects 96"}}),
    [](const auto& info) {
      std::string name = info.param.scenario;
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(HardwareDescribe, CountsWithTheirNouns) {
  EXPECT_EQ(describe_hardware(HardwareFacts{8, 2, 96}), "8 GPUs, 2 NUMA nodes, 96 cores");
  EXPECT_EQ(describe_hardware(HardwareFacts{1, 1, 1}), "1 GPU, 1 NUMA node, 1 core");
}

}  // namespace
}  // namespace shareq
