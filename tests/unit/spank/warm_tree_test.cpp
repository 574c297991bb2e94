// remove_tree / remove_tree_at (plugins/spank/warm_tree.hpp): a warm directory is removed as
// root while its user may still change it; nothing outside it may be touched.
#include "warm_tree.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cache_fixture.hpp"

namespace shareq::spank_plugin::node {
namespace {

using imagecache::testing::ReadFile;
using imagecache::testing::TempDir;
using imagecache::testing::WriteFile;
namespace fs = std::filesystem;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Somewhere the user must not be able to make root delete: a directory with files f0..f49 (the
// names the tree under attack holds too) and a file.
struct Outside {
  explicit Outside(const std::string& base) : dir(base + "/outside"), file(base + "/secret") {
    fs::create_directory(dir);
    for (int i = 0; i < 50; ++i) WriteFile(dir + "/f" + std::to_string(i), "keep");
    fs::create_directory(dir + "/sub");
    WriteFile(dir + "/sub/deep", "deep");
    WriteFile(file, "secret");
  }
  [[nodiscard]] bool intact() const {
    for (int i = 0; i < 50; ++i) {
      if (ReadFile(dir + "/f" + std::to_string(i)) != "keep") return false;
    }
    return ReadFile(dir + "/sub/deep") == "deep" && ReadFile(file) == "secret";
  }
  std::string dir;
  std::string file;
};

TEST(RemoveTree, RemovesTheTreeButNotWhatItsLinksPointTo) {
  TempDir tmp;
  Outside outside(tmp.path());
  const std::string tree = tmp.path() + "/warm-7";
  fs::create_directories(tree + "/a/b/c");
  WriteFile(tree + "/a/b/c/data", "x");
  WriteFile(tree + "/top", "x");
  fs::create_directory_symlink(outside.dir, tree + "/link-to-dir");
  fs::create_symlink(outside.file, tree + "/a/link-to-file");
  fs::create_directory_symlink(outside.dir + "/sub", tree + "/a/b/link-to-sub");
  fs::create_symlink(tree + "/nowhere", tree + "/dangling");
  ::mkfifo((tree + "/a/fifo").c_str(), 0600);

  auto removed = remove_tree(tree);

  ASSERT_TRUE(removed) << removed.error().to_string();
  EXPECT_TRUE(removed.value());
  EXPECT_FALSE(Exists(tree));
  EXPECT_TRUE(outside.intact());
}

TEST(RemoveTree, ANameThatIsALinkIsRemovedAsALink) {
  TempDir tmp;
  Outside outside(tmp.path());
  const std::string link = tmp.path() + "/warm-8";
  fs::create_directory_symlink(outside.dir, link);

  auto removed = remove_tree(link);

  ASSERT_TRUE(removed) << removed.error().to_string();
  EXPECT_FALSE(Exists(link));
  EXPECT_TRUE(outside.intact());
}

TEST(RemoveTree, NothingThereIsNotAnError) {
  TempDir tmp;
  auto removed = remove_tree(tmp.path() + "/warm-9");
  ASSERT_TRUE(removed);
  EXPECT_FALSE(removed.value());
}

TEST(RemoveTree, RefusesNamesThatAreNotOneComponent) {
  TempDir tmp;
  const int fd = ::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (const char* bad : {"", ".", "..", "a/b", "../x"}) {
    auto removed = remove_tree_at(fd, bad);
    ASSERT_FALSE(removed) << bad;
    EXPECT_EQ(removed.error().field, "warm directory");
  }
  ::close(fd);
  EXPECT_TRUE(Exists(tmp.path()));
  EXPECT_FALSE(remove_tree("relative/path"));
}

TEST(RemoveTree, LeavesATreeTooDeepInPlaceWithAnError) {
  TempDir tmp;
  std::string path = tmp.path() + "/warm-10";
  fs::create_directory(path);
  for (int i = 0; i < kMaxRemoveDepth + 5; ++i) {
    path += "/d";
    ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  }
  auto removed = remove_tree(tmp.path() + "/warm-10");
  ASSERT_FALSE(removed);
  EXPECT_NE(removed.error().message.find("nested deeper than"), std::string::npos);
  EXPECT_TRUE(Exists(tmp.path() + "/warm-10/d"));
}

TEST(RemoveTree, NeverEntersAMountPoint) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir tmp;
  const std::string tree = tmp.path() + "/warm-11";
  fs::create_directories(tree + "/mnt");
  WriteFile(tree + "/file", "x");
  if (::mount("shareq-test", (tree + "/mnt").c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  WriteFile(tree + "/mnt/on-the-mount", "kept");

  auto removed = remove_tree(tree);

  const std::string kept = ReadFile(tree + "/mnt/on-the-mount");
  ::umount2((tree + "/mnt").c_str(), MNT_DETACH);
  ASSERT_FALSE(removed);
  EXPECT_NE(removed.error().message.find("mount point"), std::string::npos);
  EXPECT_EQ(kept, "kept");
  EXPECT_FALSE(Exists(tree + "/file"));
}

// The attack: while root removes the tree, the user keeps swapping a subdirectory for a link to
// a directory with the same file names. A path-based walk (nftw, which unlinks "tree/d/f3" by
// path) sooner or later resolves such a path through the link and deletes outside.
TEST(RemoveTree, ASubdirectorySwappedForALinkDuringRemovalRedirectsNothing) {
  TempDir tmp;
  Outside outside(tmp.path());
  for (int round = 0; round < 200; ++round) {
    const std::string tree = tmp.path() + "/warm-12";
    fs::create_directories(tree + "/d");
    for (int i = 0; i < 50; ++i) WriteFile(tree + "/d/f" + std::to_string(i), "x");
    std::atomic<bool> stop{false};
    std::thread attacker([&] {
      const std::string d = tree + "/d";
      const std::string parked = tree + "/parked";
      while (!stop.load()) {
        if (::rename(d.c_str(), parked.c_str()) == 0) {
          (void)::symlink(outside.dir.c_str(), d.c_str());
          std::this_thread::yield();
          (void)::unlink(d.c_str());
          (void)::rename(parked.c_str(), d.c_str());
        }
      }
    });
    // The attacker may recreate names while the removal runs: a few passes until it is gone.
    for (int pass = 0; pass < 20 && Exists(tree); ++pass) (void)remove_tree(tree);
    stop = true;
    attacker.join();
    (void)remove_tree(tree);
    ASSERT_TRUE(outside.intact()) << "round " << round;
    ASSERT_FALSE(Exists(tree)) << "round " << round;
  }
}

}  // namespace
}  // namespace shareq::spank_plugin::node
