// ensure_cached from a directory store: fetch, permissions, pinned digests, and every failure
// leaving the cache clean.
#include <sys/resource.h>

#include "cache_fixture.hpp"

namespace shareq::imagecache::testing {
namespace {

class CacheTest : public ::testing::Test {
 protected:
  CacheOptions Options() {
    CacheOptions options;
    options.store = store_.dir();
    options.cache_dir = tmp_.path() + "/cache";
    options.capacity_bytes = 1 << 30;
    options.lock_timeout_ms = 10'000;
    return options;
  }
  ImageCache Open(const CacheOptions& options) {
    Result<ImageCache> cache = ImageCache::open(options);
    EXPECT_TRUE(cache) << cache.error().to_string();
    return std::move(cache).value();
  }
  ImageCache Open() { return Open(Options()); }
  // Nothing but finished images in sha256/ (no temporary file).
  std::vector<std::string> Cached() { return List(tmp_.path() + "/cache/sha256"); }

  TempDir tmp_;
  Store store_{tmp_.path() + "/store"};
};

TEST_F(CacheTest, FetchesOnceThenServesFromTheCache) {
  const std::string data = Bytes(300'000, 1);
  const std::string digest = store_.put("llama", data);
  ImageCache cache = Open();
  Result<CachedImage> first = cache.ensure_cached(Ref("llama"), "", 1000);
  ASSERT_TRUE(first) << first.error().to_string();
  EXPECT_TRUE(first.value().fetched);
  EXPECT_EQ(first.value().digest, digest);
  EXPECT_EQ(first.value().path, tmp_.path() + "/cache/sha256/" + digest);
  EXPECT_EQ(first.value().size, 300'000);
  EXPECT_EQ(ReadFile(first.value().path), data);
  Result<CachedImage> second = cache.ensure_cached(Ref("llama"), "", 2000);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second.value().fetched);
  EXPECT_EQ(Cached(), std::vector<std::string>{digest});
  struct stat st {};
  ASSERT_EQ(::stat(first.value().path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mtime, 2000) << "the last use is recorded as the mtime";
}

TEST_F(CacheTest, CachedImagesAreReadOnlyAndDirectoriesRootOwned) {
  store_.put("llama", "image");
  ImageCache cache = Open();
  Result<CachedImage> image = cache.ensure_cached(Ref("llama"), "job-1", 1000);
  ASSERT_TRUE(image);
  EXPECT_EQ(Mode(image.value().path), 0444u);
  struct stat st {};
  ASSERT_EQ(::stat(image.value().path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
  for (const char* dir : {"", "/sha256", "/locks", "/pins", "/pins/"}) {
    std::string path = tmp_.path() + "/cache" + dir;
    if (std::string(dir) == "/pins/") path += image.value().digest;
    SCOPED_TRACE(path);
    EXPECT_EQ(Mode(path), 0755u);
  }
}

TEST_F(CacheTest, OpenFixesAWorldWritableCacheDirectory) {
  const std::string dir = tmp_.path() + "/cache";
  std::filesystem::create_directories(dir + "/sha256");
  ::chmod((dir + "/sha256").c_str(), 0777);
  Open();
  EXPECT_EQ(Mode(dir + "/sha256"), 0755u);
}

TEST_F(CacheTest, OpenRefusesADirectoryOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  const std::string dir = tmp_.path() + "/cache";
  std::filesystem::create_directories(dir + "/sha256");
  ASSERT_EQ(::chown((dir + "/sha256").c_str(), 12345, 12345), 0);
  const Result<ImageCache> cache = ImageCache::open(Options());
  ASSERT_FALSE(cache);
  EXPECT_NE(cache.error().message.find("owned by uid 12345"), std::string::npos);
}

TEST_F(CacheTest, OpenRefusesBadLocations) {
  CacheOptions options = Options();
  options.cache_dir = "relative/cache";
  EXPECT_FALSE(ImageCache::open(options));
  options = Options();
  options.store = "ftp://example.org/images";
  EXPECT_FALSE(ImageCache::open(options));
  options.store = "";
  EXPECT_FALSE(ImageCache::open(options));
}

TEST_F(CacheTest, BareDigestFileIsAccepted) {
  const std::string digest = Sha("x");
  WriteFile(store_.dir() + "/bare", "x");
  WriteFile(store_.dir() + "/bare.sha256", digest);
  ImageCache cache = Open();
  Result<CachedImage> image = cache.ensure_cached(Ref("bare"), "", 1);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_EQ(image.value().digest, digest);
}

TEST_F(CacheTest, PinnedDigestMustMatchTheStore) {
  const std::string digest = store_.put("llama", "v2");
  const std::string other = Sha("v1");
  ImageCache cache = Open();
  ASSERT_TRUE(cache.ensure_cached(Ref("llama", digest), "", 1));
  const Result<CachedImage> wrong = cache.ensure_cached(Ref("llama", other), "", 1);
  ASSERT_FALSE(wrong);
  const std::string& message = wrong.error().message;
  EXPECT_NE(message.find("image llama"), std::string::npos) << message;
  EXPECT_NE(message.find(other), std::string::npos) << message;
  EXPECT_NE(message.find(digest), std::string::npos) << message;
  EXPECT_EQ(Cached(), std::vector<std::string>{digest});
}

TEST_F(CacheTest, PinnedDigestAlreadyCachedNeedsNoStore) {
  const std::string digest = store_.put("llama", "v1");
  ImageCache cache = Open();
  ASSERT_TRUE(cache.ensure_cached(Ref("llama"), "", 1));
  store_.put("llama", "v2");  // the store moved on; the pinned job still gets its image
  const Result<CachedImage> again = cache.ensure_cached(Ref("llama", digest), "", 2);
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_FALSE(again.value().fetched);
}

struct FailureCase {
  const char* name;
  std::function<void(const std::string& dir)> break_store;
  const char* cause;
};

TEST_F(CacheTest, FailuresLeaveNothingInTheCache) {
  const std::string good = Bytes(200'000, 7);
  const std::vector<FailureCase> cases = {
      {"corrupted image", [&](const std::string& d) { WriteFile(d + "/img", Bytes(200'000, 8)); },
       "digest mismatch"},
      {"truncated image",
       [&](const std::string& d) { WriteFile(d + "/img", good.substr(0, 1000)); },
       "digest mismatch"},
      {"missing image", [](const std::string& d) { ::unlink((d + "/img").c_str()); },
       "No such file"},
      {"missing digest", [](const std::string& d) { ::unlink((d + "/img.sha256").c_str()); },
       "cannot read its published digest"},
      {"malformed digest", [](const std::string& d) { WriteFile(d + "/img.sha256", "xyz\n"); },
       "64 hex digits"},
      {"image is a directory",
       [](const std::string& d) {
         ::unlink((d + "/img").c_str());
         ::mkdir((d + "/img").c_str(), 0755);
       },
       "not a regular file"},
  };
  for (const FailureCase& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp;
    Store store(tmp.path() + "/store");
    store.put("img", good);
    c.break_store(store.dir());
    CacheOptions options = Options();
    options.store = store.dir();
    options.cache_dir = tmp.path() + "/cache";
    ImageCache cache = Open(options);
    const Result<CachedImage> image = cache.ensure_cached(Ref("img"), "job-1", 1);
    ASSERT_FALSE(image);
    EXPECT_EQ(image.error().field, "image");
    EXPECT_NE(image.error().message.find("image img"), std::string::npos) << image.error().message;
    EXPECT_NE(image.error().message.find(c.cause), std::string::npos) << image.error().message;
    EXPECT_TRUE(List(tmp.path() + "/cache/sha256").empty());
    EXPECT_TRUE(List(tmp.path() + "/cache/pins").empty()) << "no pin for a failed fetch";
  }
}

TEST_F(CacheTest, AnImageLargerThanTheWholeCacheIsRefusedBeforeItIsFetched) {
  store_.put("huge", Bytes(300'000, 3));
  CacheOptions options = Options();
  options.capacity_bytes = 200'000;
  ImageCache cache = Open(options);
  const Result<CachedImage> image = cache.ensure_cached(Ref("huge"), "job-1", 1);
  ASSERT_FALSE(image);
  EXPECT_NE(image.error().message.find(
                "300000 bytes, larger than the image cache (ImageCacheSize, 200000 bytes)"),
            std::string::npos)
      << image.error().message;
  EXPECT_TRUE(Cached().empty());
}

TEST_F(CacheTest, CorruptFetchIsRetriedCleanlyByTheNextJob) {
  const std::string good = Bytes(50'000, 3);
  const std::string digest = store_.put("img", good);
  WriteFile(store_.dir() + "/img", Bytes(50'000, 4));
  ImageCache cache = Open();
  ASSERT_FALSE(cache.ensure_cached(Ref("img"), "", 1));
  WriteFile(store_.dir() + "/img", good);
  const Result<CachedImage> image = cache.ensure_cached(Ref("img"), "", 2);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_TRUE(image.value().fetched);
  EXPECT_EQ(Cached(), std::vector<std::string>{digest});
}

TEST_F(CacheTest, WriteFailureLeavesNothing) {
  // A file-size limit makes write() fail part way, as a full disk does with ENOSPC.
  store_.put("big", Bytes(1 << 20, 5));
  ImageCache cache = Open();
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit = {100'000, 100'000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const Result<CachedImage> image = cache.ensure_cached(Ref("big"), "", 1);
    const bool ok = !image && image.error().message.find("image big: writing to the cache") !=
                                  std::string::npos;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(Cached().empty());
}

TEST_F(CacheTest, VerifyCachedRefetchesADamagedImage) {
  const std::string data = Bytes(10'000, 9);
  store_.put("img", data);
  CacheOptions options = Options();
  options.verify_cached = true;
  ImageCache cache = Open(options);
  Result<CachedImage> image = cache.ensure_cached(Ref("img"), "", 1);
  ASSERT_TRUE(image);
  ::chmod(image.value().path.c_str(), 0644);
  WriteFile(image.value().path, "tampered");
  image = cache.ensure_cached(Ref("img"), "", 2);
  ASSERT_TRUE(image) << image.error().to_string();
  EXPECT_TRUE(image.value().fetched);
  EXPECT_EQ(ReadFile(image.value().path), data);
}

TEST_F(CacheTest, StaleTempFilesAreRemovedUnlessAFetchHoldsThem) {
  ImageCache cache = Open();
  const std::string dir = tmp_.path() + "/cache/sha256/";
  const std::string a(64, 'a');
  const std::string b(64, 'b');
  const std::string c(64, 'c');
  for (const std::string& name : {".tmp-" + a + "-1-1", ".tmp-" + b + "-1-1", ".tmp-" + c + "-1-1",
                                  std::string(".tmp-junk")}) {
    WriteFile(dir + name, "partial");
  }
  const struct timespec old[2] = {{1000, 0}, {1000, 0}};
  for (const std::string& digest : {a, b}) {
    ::utimensat(AT_FDCWD, (dir + ".tmp-" + digest + "-1-1").c_str(), old, 0);
  }
  ::utimensat(AT_FDCWD, (dir + ".tmp-junk").c_str(), old, 0);
  // A fetch of `b` is running: its lock is held.
  const int held =
      ::open((tmp_.path() + "/cache/locks/" + b + ".lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  const Result<int> removed = cache.remove_stale_temps(5000, 3600);
  ::close(held);
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed.value(), 2);
  // `c` is recent (written now, far after 5000 - 3600): it stays too.
  EXPECT_EQ(List(dir), (std::vector<std::string>{".tmp-" + b + "-1-1", ".tmp-" + c + "-1-1"}));
}

}  // namespace
}  // namespace shareq::imagecache::testing
