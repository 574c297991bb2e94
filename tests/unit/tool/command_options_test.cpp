#include "command_options.hpp"

#include <gtest/gtest.h>

#include <array>
#include <sstream>

namespace shareq::tool {
namespace {

constexpr std::array<std::string_view, 3> kAll = {"--config", "--family", "--json"};

std::optional<CommandOptions> parse(std::vector<std::string> args, std::string* err = nullptr) {
  std::ostringstream stream;
  auto options = parse_command_options(args, kAll, "shareq x", stream);
  if (err != nullptr) *err = stream.str();
  return options;
}

TEST(CommandOptions, BothSpellingsAndOperands) {
  const auto options = parse({"--config", "a.conf", "--family=p5", "--json", "42"});
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->config, "a.conf");
  EXPECT_EQ(options->family, "p5");
  EXPECT_TRUE(options->json);
  EXPECT_EQ(options->operands, std::vector<std::string>{"42"});
}

TEST(CommandOptions, BadCommandLinesSayWhatAndShowUsage) {
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--bogus"}, "unknown option \"--bogus\""},
           {{"--config"}, "--config needs a value"},
           {{"--config="}, "--config needs a value"},
           {{"--json=yes"}, "--json takes no value"}}) {
    std::string err;
    EXPECT_FALSE(parse(args, &err).has_value()) << args[0];
    EXPECT_NE(err.find(message), std::string::npos) << err;
    EXPECT_NE(err.find("usage: shareq x"), std::string::npos) << err;
  }
}

TEST(CommandOptions, OnlyTheAllowedOptions) {
  std::ostringstream err;
  const std::array<std::string_view, 1> only_json = {"--json"};
  const std::vector<std::string> args = {"--family", "p5"};
  EXPECT_FALSE(parse_command_options(args, only_json, "shareq pools", err).has_value());
}

}  // namespace
}  // namespace shareq::tool
