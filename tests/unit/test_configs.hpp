// shareq.conf texts shared by the unit tests.
#pragma once

#include <stdexcept>
#include <string>

#include "config.hpp"

namespace shareq::testing {

// The test cluster's configuration: p4 counts nodes, p5 counts GPUs.
inline constexpr const char* kClusterConf = R"(Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2 BorrowLimit=UNLIMITED
Share=ProdExp2 Family=p4 Quota=node=2 BorrowLimit=node=2 LendLimit=50%
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16 BorrowLimit=50%
DefaultPriority=50
)";

// kClusterConf with Research's BorrowWeight=2.5 on p5 (the others keep the default, 1).
inline constexpr const char* kWeightedClusterConf = R"(Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2 BorrowLimit=UNLIMITED
Share=ProdExp2 Family=p4 Quota=node=2 BorrowLimit=node=2 LendLimit=50%
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16 BorrowLimit=50% BorrowWeight=2.5
DefaultPriority=50
)";

// One node family p4 with one share "a" holding all of it.
inline constexpr const char* kFamiliesOnlyConf =
    "Family=p4 Partitions=p4 Capacity=node=4\nShare=a Family=p4 Quota=node=4\n";

// Parses `text`, which the test expects to be valid.
inline Config must_parse(const std::string& text) {
  ParseResult parsed = parse_config(text, "shareq.conf");
  if (!parsed.config) {
    std::string all;
    for (const auto& e : parsed.errors) all += e.to_string() + "\n";
    throw std::runtime_error("unexpected errors:\n" + all);
  }
  return *parsed.config;
}

}  // namespace shareq::testing
