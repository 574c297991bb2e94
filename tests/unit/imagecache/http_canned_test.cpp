// The HTTP store's response handling fed raw bytes (canned_store.hpp, as the fuzzer
// fuzz_http_response does): bodies within and over the limit, chunked bodies, a status >= 400, a
// body cut short of its Content-Length (or of its chunks), a redirect to file:// refused, and
// downloads bounded by the cache's size; each error in shareq's words.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "canned_store.hpp"
#include "imagecache/http.hpp"
#include "imagecache/sha256.hpp"

namespace shareq::imagecache {
namespace {

using testing::CannedStore;

const std::string kUrl = "http://store.test/llama.sha256";

Result<std::string> Get(const CannedStore& canned, size_t max_bytes = 4096) {
  return http_get_small(kUrl, max_bytes, TransferLimits{2, 2, 5}, canned.connections());
}

TEST(HttpCannedTest, ReadsABodyOfContentLength) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  const Result<std::string> body = Get(canned);
  ASSERT_TRUE(body) << body.error().to_string();
  EXPECT_EQ(body.value(), "hello");
}

TEST(HttpCannedTest, ReadsAChunkedBody) {
  const CannedStore canned(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n "
      "world\r\n0\r\n\r\n");
  const Result<std::string> body = Get(canned);
  ASSERT_TRUE(body) << body.error().to_string();
  EXPECT_EQ(body.value(), "hello world");
}

TEST(HttpCannedTest, RefusesABodyOverTheLimit) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  const Result<std::string> body = Get(canned, 4);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().message, "fetching " + kUrl + " failed: larger than 4 bytes");
}

TEST(HttpCannedTest, NamesTheStatus) {
  const CannedStore canned("HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\noops");
  const Result<std::string> body = Get(canned);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().message, "fetching " + kUrl + " failed: HTTP status 500");
}

TEST(HttpCannedTest, RefusesABodyCutShortOfItsContentLength) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\nshort");
  const Result<std::string> body = Get(canned);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().message,
            "fetching " + kUrl +
                " failed: the store closed the connection after 5 of the 99999999999 bytes it "
                "announced");
}

TEST(HttpCannedTest, RefusesAChunkedBodyCutShort) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
  const Result<std::string> body = Get(canned);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().message,
            "fetching " + kUrl +
                " failed: the store closed the connection after 5 bytes, before the end of the "
                "body");
}

TEST(HttpCannedTest, DoesNotFollowARedirectToAFile) {
  const CannedStore canned(
      "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n");
  const Result<std::string> body = Get(canned);
  ASSERT_FALSE(body);
  EXPECT_EQ(CannedStore::opened(), 1u);
  EXPECT_EQ(body.error().message,
            "fetching " + kUrl +
                " failed: the store redirected to file:///etc/passwd; shareq follows redirects "
                "to http and https only");
}

TEST(HttpCannedTest, StopsFollowingRedirectsAfterFive) {
  const CannedStore canned(
      "HTTP/1.1 302 Found\r\nLocation: http://elsewhere.test/x\r\n"
      "Content-Length: 0\r\n\r\n");
  const Result<std::string> body = Get(canned);
  ASSERT_FALSE(body);
  EXPECT_EQ(CannedStore::opened(), 6u);  // the first request and five redirects
  EXPECT_EQ(body.error().message,
            "fetching " + kUrl + " failed: more than 5 redirects; shareq follows at most 5");
}

TEST(HttpCannedTest, DownloadsAndHashesWhatItWrites) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  const int fd = ::memfd_create("download", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  Sha256 hash;
  const Result<int64_t> written =
      http_download(kUrl, fd, hash, TransferLimits{2, 2, 5}, canned.connections());
  ::close(fd);
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(written.value(), 5);
  Sha256 expected;
  expected.update("hello", 5);
  EXPECT_EQ(hash.finish(), expected.finish());
}

Result<int64_t> Download(const CannedStore& canned, int64_t max_bytes) {
  const int fd = ::memfd_create("download", MFD_CLOEXEC);
  if (fd < 0) return Error{"test", "memfd_create failed"};
  Sha256 hash;
  TransferLimits limits{2, 2, 5};
  limits.max_bytes = max_bytes;
  Result<int64_t> written = http_download(kUrl, fd, hash, limits, canned.connections());
  ::close(fd);
  return written;
}

const std::string kOverTheCache = "fetching " + kUrl +
                                  " failed: larger than the image cache (ImageCacheSize, 4 bytes); "
                                  "not cached";

TEST(HttpCannedTest, RefusesADownloadAnnouncedLargerThanTheCache) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 1152921504606846976\r\n\r\nhello");
  const Result<int64_t> written = Download(canned, 4);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().message, kOverTheCache);
}

TEST(HttpCannedTest, StopsADownloadThatSendsMoreThanTheCacheHolds) {
  const CannedStore canned(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n3\r\nlo!\r\n0\r\n\r\n");
  const Result<int64_t> written = Download(canned, 4);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().message, kOverTheCache);
}

TEST(HttpCannedTest, DownloadsABodyOfExactlyTheLimit) {
  const CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nhell");
  const Result<int64_t> written = Download(canned, 4);
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(written.value(), 4);
}

}  // namespace
}  // namespace shareq::imagecache
