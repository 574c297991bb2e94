// The HTTP image store's response handling never crashes, leaks or hangs on any bytes a store
// sends back: status line, headers, Content-Length, chunked bodies, redirects (each redirect's
// connection gets the same bytes, so Location loops end at curl's limit of 5), early close.
// The input is byte 0 (which call and its size limit) then the raw response, which a server
// thread of this process sends for every connection over an abstract Unix socket
// (canned_store.hpp; curl is pointed there by http.hpp's TestConnections): no network.
//
// Checked: a small GET's body is at most its limit and goes through parse_digest_file as
// published_digest does; a download's bytes written equal the file's size and the hash fed
// equals the file's own digest; every error names the URL and is the "image" field's.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canned_store.hpp"
#include "imagecache/http.hpp"
#include "imagecache/sha256.hpp"
#include "warm/digest_file.hpp"

namespace {

namespace imagecache = shareq::imagecache;
using imagecache::testing::CannedStore;

const std::string kUrl = "http://store.test:8080/images/llama";

void require(bool condition) {
  if (!condition) std::abort();
}

void require_error_names_url(const shareq::Error& error) {
  require(error.field == "image");
  require(error.message.rfind("fetching ", 0) == 0);
  require(error.message.find(" failed: ") != std::string::npos);
}

void small_get(const CannedStore& store, size_t max_bytes,
               const imagecache::TransferLimits& limits) {
  const auto body = imagecache::http_get_small(kUrl, max_bytes, limits, store.connections());
  if (!body) return require_error_names_url(body.error());
  require(body.value().size() <= max_bytes);
  const auto digest = shareq::warm::parse_digest_file(body.value(), "llama");
  require(digest || digest.error().field == "image");
}

std::string file_digest(int fd, off_t size) {
  std::string bytes(static_cast<size_t>(size), '\0');
  require(::pread(fd, bytes.data(), bytes.size(), 0) == size);
  imagecache::Sha256 hash;
  hash.update(bytes.data(), bytes.size());
  return hash.finish();
}

void download(const CannedStore& store, const imagecache::TransferLimits& limits) {
  const int fd = ::memfd_create("fuzz_http_response", MFD_CLOEXEC);
  require(fd >= 0);
  imagecache::Sha256 hash;
  const auto written = imagecache::http_download(kUrl, fd, hash, limits, store.connections());
  struct stat st {};
  require(::fstat(fd, &st) == 0);
  if (written) {
    require(written.value() == st.st_size);
    require(hash.finish() == file_digest(fd, st.st_size));
  } else {
    require_error_names_url(written.error());
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const CannedStore store(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  imagecache::TransferLimits limits;
  limits.connect_timeout_s = 2;
  limits.stall_timeout_s = 2;
  limits.transfer_timeout_s = 5;
  if ((mode & 1) != 0) {
    download(store, limits);
  } else {
    small_get(store, size_t{1} << ((mode >> 1) & 15), limits);  // 1 B .. 32 KiB
  }
  return 0;
}
