#include "node_check.hpp"

#include <gtest/gtest.h>

#include <array>
#include <sstream>

#include "command_options.hpp"
#include "../test_configs.hpp"

namespace shareq::tool {
namespace {

const Config kConfig = shareq::testing::must_parse(
    "Family=p4 Partitions=p4,p4b Capacity=node=4\n"
    "Family=p5 Partitions=p5 Capacity=gres/gpu=32 Hardware=gpus=8,numa=2,cores=96\n"
    "Family=p5e Partitions=p5e Capacity=gres/gpu=32 Hardware=gpus=8\n");

std::vector<std::string> names(const std::vector<const Family*>& families) {
  std::vector<std::string> out;
  out.reserve(families.size());
  for (const Family* f : families) out.push_back(f->name);
  return out;
}

TEST(NodeCheckFamilies, FromTheNodesPartitionsInConfigOrderEachOnce) {
  const auto families = families_to_check(kConfig, std::nullopt, {"p5e", "debug", "p4b", "p4"});
  ASSERT_TRUE(families);
  EXPECT_EQ(names(families.value()), (std::vector<std::string>{"p4", "p5e"}));
  EXPECT_EQ(names(families_with_hardware(families.value())), std::vector<std::string>{"p5e"});
  EXPECT_TRUE(families_to_check(kConfig, std::nullopt, {"debug"}).value().empty());
}

TEST(NodeCheckFamilies, FamilyOptionWinsAndAnUnknownOneNamesTheFamilies) {
  EXPECT_EQ(names(families_to_check(kConfig, "p5", {"p4"}).value()),
            std::vector<std::string>{"p5"});
  const auto unknown = families_to_check(kConfig, "p9", {});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().to_string(),
            "--family: no family \"p9\" in shareq.conf; families: p4, p5, p5e");
}

TEST(NodeCheckVerdicts, HealthyMismatchAndNothingToCheck) {
  const std::vector<const Family*> p5 = {kConfig.find_family("p5")};
  const NodeCheckVerdict ok = judge_hardware(p5, HardwareFacts{8, 2, 96});
  EXPECT_TRUE(ok.healthy);
  EXPECT_EQ(ok.line, "shareq: hardware: ok: 8 GPUs, 2 NUMA nodes, 96 cores, as family p5 expects");

  const NodeCheckVerdict bad = judge_hardware(p5, HardwareFacts{7, 2, 96});
  EXPECT_FALSE(bad.healthy);
  EXPECT_EQ(bad.line, "shareq: hardware: 7 GPUs found, family p5 expects 8");

  const std::vector<const Family*> both = {kConfig.find_family("p4"), kConfig.find_family("p5"),
                                           kConfig.find_family("p5e")};
  EXPECT_EQ(judge_hardware(both, HardwareFacts{8, 2, 96}).line,
            "shareq: hardware: ok: 8 GPUs, 2 NUMA nodes, 96 cores, as families p5, p5e expect");
  EXPECT_EQ(judge_hardware(both, HardwareFacts{6, 1, 96}).line,
            "shareq: hardware: 6 GPUs found, family p5 expects 8; 1 NUMA node found, family p5 "
            "expects 2; 6 GPUs found, family p5e expects 8");

  EXPECT_EQ(nothing_to_check({kConfig.find_family("p4")}, "n1").line,
            "shareq: hardware: ok: nothing to check (family p4: no Hardware=)");
  EXPECT_EQ(nothing_to_check({}, "n1").line,
            "shareq: hardware: ok: nothing to check (node n1 is in no shareq family)");
  EXPECT_TRUE(nothing_to_check({}, "n1").healthy);
}

TEST(NodeCheckVerdicts, TopologyErrorFailsClosed) {
  const NodeCheckVerdict v =
      topology_failure(Error{"topology", "this machine: hwloc cannot load it (EINVAL)"});
  EXPECT_FALSE(v.healthy);
  EXPECT_EQ(
      v.line,
      "shareq: hardware: cannot check: topology: this machine: hwloc cannot load it (EINVAL)");
}

TEST(NodeCheckOptions, DrainIsAFlag) {
  constexpr std::array<std::string_view, 3> kOptions = {"--family", "--drain", "--config"};
  std::ostringstream err;
  const std::vector<std::string> args = {"--drain", "--family=p5"};
  const auto options = parse_command_options(args, kOptions, "shareq node-check", err);
  ASSERT_TRUE(options);
  EXPECT_TRUE(options->drain);
  EXPECT_EQ(options->family, "p5");
  const std::vector<std::string> bad = {"--drain=yes"};
  EXPECT_FALSE(parse_command_options(bad, kOptions, "shareq node-check", err));
  EXPECT_NE(err.str().find("--drain takes no value"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace shareq::tool
