#include "tres.hpp"

#include <gtest/gtest.h>

namespace shareq::tool {
namespace {

TEST(TresCount, FindsNodesAndGpus) {
  const char* tres = "cpu=2,mem=125G,node=2,billing=2,gres/gpu=16";
  EXPECT_EQ(tres_count(tres, "node"), 2);
  EXPECT_EQ(tres_count(tres, "gres/gpu"), 16);
}

TEST(TresCount, AbsentOrNotANumberIsZero) {
  EXPECT_EQ(tres_count("", "node"), 0);
  EXPECT_EQ(tres_count("cpu=1,node=1", "gres/gpu"), 0);
  EXPECT_EQ(tres_count("gres/gpu=x,node=-1", "gres/gpu"), 0);
  EXPECT_EQ(tres_count("node=-1", "node"), 0);
  EXPECT_EQ(tres_count("gres/gpu:a100=4", "gres/gpu"), 0);  // typed GPUs are not the total
}

}  // namespace
}  // namespace shareq::tool
