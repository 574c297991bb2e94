#include "imagecache/http.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "imagecache/fs_util.hpp"
#include "imagecache/sha256.hpp"

namespace shareq::imagecache {
namespace {

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

CurlHandle make_handle(const std::string& url, const TransferLimits& limits) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CurlHandle curl(curl_easy_init());
  if (!curl) return curl;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(limits.connect_timeout_s));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(limits.stall_timeout_s));
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(limits.transfer_timeout_s));
  return curl;
}

CurlHandle make_transfer(const std::string& url, const TransferLimits& limits,
                         const TestConnections* test) {
  CurlHandle curl = make_handle(url, limits);
  if (curl && test != nullptr) {
    curl_easy_setopt(curl.get(), CURLOPT_ABSTRACT_UNIX_SOCKET, test->abstract_socket.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_PROXY, "");
  }
  return curl;
}

// Runs the transfer; the error names the URL, the HTTP status when there is one, and curl's
// reason, or `sink_error` (filled by the write callback when it gave up).
Result<bool> perform(CURL* curl, const std::string& url, const std::string& sink_error) {
  char detail[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  if (rc == CURLE_OK) return true;
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  std::string message = "fetching " + url + " failed: ";
  if ((rc == CURLE_WRITE_ERROR || rc == CURLE_FILESIZE_EXCEEDED) && !sink_error.empty()) {
    message += sink_error;
  } else if (rc == CURLE_HTTP_RETURNED_ERROR) {
    message += "HTTP status " + std::to_string(status);
  } else {
    message += curl_easy_strerror(rc);
    if (detail[0] != '\0') message += std::string(" (") + detail + ")";
  }
  return Error{"image", message};
}

struct SmallSink {
  std::string data;
  size_t max = 0;
  std::string error;
};

size_t small_write(char* ptr, size_t size, size_t count, void* user) {
  auto* sink = static_cast<SmallSink*>(user);
  const size_t n = size * count;
  if (sink->data.size() + n > sink->max) {
    sink->error = "larger than " + std::to_string(sink->max) + " bytes";
    return 0;
  }
  sink->data.append(ptr, n);
  return n;
}

struct FileSink {
  int fd = -1;
  Sha256* hash = nullptr;
  int64_t max = 0;  // 0 = no limit
  int64_t written = 0;
  int write_errno = 0;
  std::string error;
};

size_t file_write(char* ptr, size_t size, size_t count, void* user) {
  auto* sink = static_cast<FileSink*>(user);
  const size_t n = size * count;
  // A store that sends on past what it announced (or announced nothing) stops here.
  if (sink->max > 0 && sink->written + static_cast<int64_t>(n) > sink->max) {
    sink->error = larger_than_the_cache(sink->max);
    return 0;
  }
  sink->hash->update(ptr, n);
  if (const int err = fs::write_all(sink->fd, ptr, n); err != 0) {
    sink->write_errno = err;
    sink->error = "writing to the cache: " + fs::errno_text(err);
    return 0;
  }
  sink->written += static_cast<int64_t>(n);
  return n;
}

}  // namespace

Result<std::string> http_get_small(const std::string& url, size_t max_bytes,
                                   const TransferLimits& limits, const TestConnections* test) {
  CurlHandle curl = make_transfer(url, limits, test);
  if (!curl) return Error{"image", "cannot start a transfer for " + url};
  SmallSink sink;
  sink.max = max_bytes;
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, small_write);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  Result<bool> done = perform(curl.get(), url, sink.error);
  if (!done) return done.error();
  return std::move(sink.data);
}

Result<int64_t> http_download(const std::string& url, int fd, Sha256& hash,
                              const TransferLimits& limits, const TestConnections* test,
                              FetchReport* report) {
  CurlHandle curl = make_transfer(url, limits, test);
  if (!curl) return Error{"image", "cannot start a transfer for " + url};
  FileSink sink{fd, &hash, limits.max_bytes, 0, 0, {}};
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, file_write);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  if (limits.max_bytes > 0) {
    // A Content-Length over the limit is refused before a byte of the body is written.
    curl_easy_setopt(curl.get(), CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(limits.max_bytes));
    sink.error = larger_than_the_cache(limits.max_bytes);  // what CURLE_FILESIZE_EXCEEDED means
  }
  Result<bool> done = perform(curl.get(), url, sink.error);
  if (report != nullptr) {
    curl_off_t length = -1;
    if (curl_easy_getinfo(curl.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) != CURLE_OK) {
      length = -1;
    }
    *report = FetchReport{sink.write_errno, sink.written, static_cast<int64_t>(length)};
  }
  if (!done) return done.error();
  return sink.written;
}

}  // namespace shareq::imagecache
