// The image cache on a full file system (a real 1 MiB tmpfs over ImageCacheDir; needs root and
// mount(2), skipped otherwise), ImageCacheSize far larger than the disk: ENOSPC fails the fetch
// with ImageCacheDir, the bytes free and needed in the message and nothing left behind; unpinned
// images are evicted to make room only when that makes room; pinned ones never.
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include "cache_fixture.hpp"

namespace shareq::imagecache::testing {
namespace {

constexpr int64_t kDisk = 1 << 20;  // the tmpfs
constexpr size_t kImage = 600'000;  // one fits, two do not

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a tmpfs";
    std::filesystem::create_directory(cache_dir_);
    const std::string options = "size=" + std::to_string(kDisk) + ",mode=0755";
    if (::mount("tmpfs", cache_dir_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) {
      EXPECT_EQ(::umount2(cache_dir_.c_str(), MNT_DETACH), 0) << std::strerror(errno);
    }
  }
  CacheOptions Options(const std::string& store) {
    CacheOptions options;
    options.store = store;
    options.cache_dir = cache_dir_;
    options.capacity_bytes = int64_t{1} << 30;  // the cache thinks it has room
    options.lock_timeout_ms = 10'000;
    options.transfer.connect_timeout_s = 5;
    options.transfer.stall_timeout_s = 10;
    options.transfer.transfer_timeout_s = 60;
    return options;
  }
  ImageCache Open(const std::string& store) {
    Result<ImageCache> cache = ImageCache::open(Options(store));
    EXPECT_TRUE(cache) << cache.error().to_string();
    return std::move(cache).value();
  }
  // Everything in sha256/: finished images and any temporary file.
  std::vector<std::string> Cached() { return List(cache_dir_ + "/sha256"); }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
  std::string cache_dir_ = tmp_.path() + "/cache";
  bool mounted_ = false;
};

void ExpectFullMessage(const Result<CachedImage>& image, const std::string& dir,
                       const std::string& why) {
  ASSERT_FALSE(image);
  const std::string& message = image.error().message;
  EXPECT_EQ(image.error().field, "image");
  for (const std::string& part :
       {std::string("image b: "), std::string("No space left on device"),
        "ImageCacheDir " + dir + " is on a full file system (", std::to_string(kImage) + " needed",
        why, std::string("not cached")}) {
    EXPECT_NE(message.find(part), std::string::npos) << "no \"" << part << "\" in: " << message;
  }
}

TEST_F(DiskFullTest, AnImageLargerThanTheDiskFailsNamingImageCacheDirAndLeavesNothing) {
  store_.put("b", Bytes(kImage * 2, 1));
  ImageCache cache = Open(store_.dir());
  const Result<CachedImage> image = cache.ensure_cached(Ref("b"), "job-1", 1);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find("1200000 needed; evicting every unpinned image would not "
                                       "make room; ImageCacheSize is 1073741824 bytes)"),
            std::string::npos)
      << image.error().message;
  EXPECT_TRUE(Cached().empty());
  // Not poisoned: once there is room, the same image is fetched whole.
  store_.put("b", Bytes(kImage, 1));
  ASSERT_TRUE(cache.ensure_cached(Ref("b"), "job-2", 2));
  EXPECT_EQ(Cached().size(), 1u);
}

TEST_F(DiskFullTest, UnpinnedImagesAreEvictedWhenTheDiskIsFullerThanImageCacheSize) {
  const std::string a = store_.put("a", Bytes(kImage, 2));
  const std::string b = store_.put("b", Bytes(kImage, 3));
  ImageCache cache = Open(store_.dir());
  ASSERT_TRUE(cache.ensure_cached(Ref("a"), "", 1));
  const Result<CachedImage> image = cache.ensure_cached(Ref("b"), "job-1", 2);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_TRUE(image.value().fetched);
  EXPECT_EQ(Cached(), std::vector<std::string>{b});
  EXPECT_EQ(ReadFile(image.value().path), Bytes(kImage, 3));
}

TEST_F(DiskFullTest, APinnedImageIsNeverEvictedForRoom) {
  const std::string a = store_.put("a", Bytes(kImage, 4));
  store_.put("b", Bytes(kImage, 5));
  ImageCache cache = Open(store_.dir());
  ASSERT_TRUE(cache.ensure_cached(Ref("a"), "job-1", 1));
  ExpectFullMessage(cache.ensure_cached(Ref("b"), "job-2", 2), cache_dir_,
                    "evicting every unpinned image would not make room");
  EXPECT_EQ(Cached(), std::vector<std::string>{a});
  // Once job-1's pin goes, the next fetch makes its room.
  ASSERT_TRUE(cache.unpin(a, "job-1").value());
  ASSERT_TRUE(cache.ensure_cached(Ref("b"), "job-2", 3));
  EXPECT_EQ(Cached().size(), 1u);
}

TEST_F(DiskFullTest, NothingIsEvictedWhenEvictingWouldNotMakeRoom) {
  // Other files hold most of the disk: evicting the one image would still leave too little.
  const std::string a = store_.put("a", Bytes(kImage / 2, 6));
  store_.put("b", Bytes(kImage, 7));
  ImageCache cache = Open(store_.dir());
  ASSERT_TRUE(cache.ensure_cached(Ref("a"), "", 1));
  WriteFile(cache_dir_ + "/filler", Bytes(kImage * 3 / 4, 8));
  ExpectFullMessage(cache.ensure_cached(Ref("b"), "", 2), cache_dir_,
                    "evicting every unpinned image would not make room");
  EXPECT_EQ(Cached(), std::vector<std::string>{a});
}

TEST_F(DiskFullTest, OverHttpTheAnnouncedLengthSaysWhatIsNeeded) {
  const std::string log = tmp_.path() + "/requests.log";
  HttpStore server(store_.dir(), log);
  ASSERT_NE(server.port(), 0) << "the test HTTP server did not start";
  const std::string a = store_.put("a", Bytes(kImage, 9));
  const std::string b = store_.put("b", Bytes(kImage, 10));
  ImageCache cache = Open(server.url("store"));
  ASSERT_TRUE(cache.ensure_cached(Ref("a"), "job-1", 1));
  const Result<CachedImage> refused = cache.ensure_cached(Ref("b"), "", 2);
  ExpectFullMessage(refused, cache_dir_, "evicting every unpinned image would not make room");
  EXPECT_NE(refused.error().message.find("image b: fetching http://127.0.0.1"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(Cached(), std::vector<std::string>{a});
  ASSERT_TRUE(cache.unpin(a, "job-1").value());
  const Result<CachedImage> image = cache.ensure_cached(Ref("b"), "", 3);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_EQ(Cached(), std::vector<std::string>{b});
}

}  // namespace
}  // namespace shareq::imagecache::testing
