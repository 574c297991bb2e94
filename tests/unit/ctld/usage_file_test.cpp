// priority/shareq's decayed-usage state file as a file (plugins/ctld/usage_file.hpp): written
// atomically and read back exactly, and a missing, unreadable or bad file refused whole with an
// error that names it. The text's every malformation is the core parser's
// (tests/unit/usage_format_test.cpp); here, that the file layer passes them on.
#include "usage_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace shareq::ctld {
namespace {

namespace fs = std::filesystem;

class UsageFileTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = (dir_ / "shareq_usage").string(); }

  void write_text(const std::string& text) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << text;
    ASSERT_TRUE(out.good());
  }

  TempDir temp_{"shareq_usage_test"};
  fs::path dir_ = temp_.path();
  std::string path_;
};

TEST_F(UsageFileTest, WritesAtomicallyAndReadsBackExactly) {
  const UsageFile file{1'700'000'000, {{"prodexp1", "p4", 7200.5}, {"research", "p5", 0.1 + 0.2}}};
  const auto why = write_usage_file(path_, file);
  ASSERT_FALSE(why) << *why;
  const Result<UsageFile> back = read_usage_file(path_);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), file);
  EXPECT_EQ(back.value().records[1].value, 0.1 + 0.2);  // exactly, not to a few digits
  // Renamed into place: nothing left behind.
  EXPECT_FALSE(fs::exists(path_ + ".new"));
  EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(dir_), fs::directory_iterator()),
            std::vector<fs::path>{fs::path(path_)});
}

TEST_F(UsageFileTest, ReplacesTheFileWhole) {
  ASSERT_FALSE(write_usage_file(path_, UsageFile{5, {{"a", "p4", 1}, {"b", "p4", 2}}}));
  const UsageFile none{17, {}};
  ASSERT_FALSE(write_usage_file(path_, none));
  const Result<UsageFile> back = read_usage_file(path_);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), none);
}

TEST_F(UsageFileTest, ReadsCommentsAndNoRecords) {
  write_text("# hello\nversion=1\n\nlast_ran=17\n# none\n");
  const Result<UsageFile> read = read_usage_file(path_);
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(read.value(), (UsageFile{17, {}}));
}

TEST_F(UsageFileTest, BadFilesAreRefusedWholeNamingTheFile) {
  for (const std::string text : {
           "",                                              // empty
           "version=1\nlast_ran=5\nprodexp1 p4 12",         // truncated: no final newline
           "version=2\nlast_ran=5\n",                       // unknown version
           "version=1\nlast_ran=soon\n",                    // bad time
           "version=1\nlast_ran=5\nprodexp1 p4\n",          // missing value
           "version=1\nlast_ran=5\nprodexp1 p4 -3\n",       // negative
           "version=1\nlast_ran=5\nprodexp1 p4 nan\n",      // not finite
           "version=1\nlast_ran=5\nprod/exp p4 1\n",        // bad name
           "version=1\n",                                   // no last_ran
           "version=1\nlast_ran=5\nprodexp1 p4 1 extra\n",  // extra field
           "version=1\nlast_ran=5\nprodexp1 p4 1\nresearch p5 oops\n",  // one bad line of two
       }) {
    write_text(text);
    const Result<UsageFile> read = read_usage_file(path_);
    ASSERT_FALSE(read) << "accepted: " << text;
    EXPECT_NE(read.error().to_string().find(path_), std::string::npos)
        << text << ": " << read.error().to_string();
  }
}

TEST_F(UsageFileTest, MissingFileIsRefusedNamingIt) {
  const Result<UsageFile> read = read_usage_file(path_);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().to_string().find(path_), std::string::npos) << read.error().to_string();
  EXPECT_NE(read.error().to_string().find("cannot read"), std::string::npos);
}

TEST_F(UsageFileTest, FailedWriteNamesTheFileAndLeavesNothing) {
  const std::string nowhere = (dir_ / "missing" / "shareq_usage").string();
  const auto why = write_usage_file(nowhere, UsageFile{5, {{"a", "p4", 1}}});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find(nowhere), std::string::npos) << *why;
  EXPECT_FALSE(fs::exists(nowhere));
  EXPECT_FALSE(fs::exists(nowhere + ".new"));
}

}  // namespace
}  // namespace shareq::ctld
