// open_regular_file (src/regular_file.hpp), the one check shareq.conf's readers and shareq sim's
// share: what is not a regular file is refused before anything reads it, and opening a FIFO
// without a writer does not wait; a pipe this process holds is read when the caller allows it.
#include "regular_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

namespace shareq {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/regular_file." +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "." + name;
}

// The problem open_regular_file gives, or "" when it opened the file (closed again here).
std::string problem(const std::string& path, HeldPipes pipes = HeldPipes::Refuse) {
  auto opened = open_regular_file(path, pipes);
  if (const int* fd = std::get_if<int>(&opened)) {
    ::close(*fd);
    return "";
  }
  return std::get<std::string>(opened);
}

constexpr const char* kAllowed = "; allowed: a regular file (or a symbolic link to one)";

TEST(RegularFile, ARegularFileOrALinkToOneIsOpened) {
  const std::string file = temp_path("file");
  std::ofstream(file) << "text\n";
  auto opened = open_regular_file(file);
  ASSERT_TRUE(std::holds_alternative<int>(opened)) << std::get<std::string>(opened);
  char buffer[8] = {};
  EXPECT_EQ(::read(std::get<int>(opened), buffer, sizeof buffer), 5);
  ::close(std::get<int>(opened));
  const std::string link = temp_path("link");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(file, link);
  EXPECT_EQ(problem(link), "");
}

TEST(RegularFile, AFifoWithoutAWriterIsRefusedAtOnce) {
  const std::string fifo = temp_path("fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A plain open would wait here for a writer that never comes.
  EXPECT_EQ(problem(fifo), std::string("is a FIFO, not a regular file") + kAllowed);
  // Nothing in this process holds it: refused when held pipes are allowed, too.
  EXPECT_EQ(problem(fifo, HeldPipes::Read),
            std::string("is a FIFO, not a regular file") + kAllowed +
                ", or a pipe this command was given open (/dev/stdin)");
  std::filesystem::remove(fifo);
}

TEST(RegularFile, DevicesAndDirectoriesSayWhatTheyAre) {
  EXPECT_EQ(problem("/dev/zero"),
            std::string("is a character device, not a regular file") + kAllowed);
  EXPECT_EQ(problem("/"), std::string("is a directory, not a regular file") + kAllowed);
  EXPECT_EQ(problem("/nonexistent/f"), "cannot read: No such file or directory");
}

TEST(RegularFile, APipeThisProcessHoldsIsReadOnlyWhenAllowed) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_EQ(::write(ends[1], "data", 4), 4);
  ::close(ends[1]);
  const std::string path = "/dev/fd/" + std::to_string(ends[0]);
  EXPECT_EQ(problem(path).rfind("is a FIFO, not a regular file", 0), 0U);
  auto opened = open_regular_file(path, HeldPipes::Read);
  ASSERT_TRUE(std::holds_alternative<int>(opened)) << std::get<std::string>(opened);
  char buffer[8] = {};
  EXPECT_EQ(::read(std::get<int>(opened), buffer, sizeof buffer), 4);  // blocking: all of it
  EXPECT_EQ(std::string(buffer), "data");
  ::close(std::get<int>(opened));
  ::close(ends[0]);
}

}  // namespace
}  // namespace shareq
