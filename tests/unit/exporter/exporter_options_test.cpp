#include "exporter_options.hpp"

#include <gtest/gtest.h>

namespace shareq::exporter {
namespace {

Result<ExporterOptions> parse(std::vector<std::string> args) {
  return parse_exporter_options(args);
}

TEST(ExporterOptions, Defaults) {
  const auto options = parse({});
  ASSERT_TRUE(options);
  EXPECT_EQ(options.value().listen_host, "");
  EXPECT_EQ(options.value().listen_port, kDefaultPort);
  EXPECT_EQ(options.value().min_interval_s, 15);
}

TEST(ExporterOptions, ListenAddressAndIntervalBothSpellings) {
  const auto options =
      parse({"--web.listen-address=127.0.0.1:9999", "--min-interval", "1", "--state-dir=/x"});
  ASSERT_TRUE(options) << options.error().to_string();
  EXPECT_EQ(options.value().listen_host, "127.0.0.1");
  EXPECT_EQ(options.value().listen_port, 9999);
  EXPECT_EQ(options.value().min_interval_s, 1);
  EXPECT_EQ(options.value().state_dir, "/x");
  EXPECT_EQ(parse({"--web.listen-address=[::1]:80"}).value().listen_host, "::1");
}

TEST(ExporterOptions, BadValuesNameTheOptionAndWhatIsAllowed) {
  const auto port = parse({"--web.listen-address=:99999"});
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().field, "--web.listen-address");
  EXPECT_NE(port.error().message.find("1..65535"), std::string::npos);
  const auto interval = parse({"--min-interval=0"});
  ASSERT_FALSE(interval);
  EXPECT_EQ(interval.error().to_string(),
            "--min-interval: \"0\" is not a number of seconds; allowed: 1..3600");
  EXPECT_FALSE(parse({"--bogus"}));
  EXPECT_FALSE(parse({"--config"}));
}

}  // namespace
}  // namespace shareq::exporter
