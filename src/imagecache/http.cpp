#include "imagecache/http.hpp"

#include <curl/curl.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "imagecache/fs_util.hpp"
#include "imagecache/sha256.hpp"

namespace shareq::imagecache {
namespace {

constexpr long kMaxRedirects = 5;

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

// curl's progress callback: a non-zero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
// curl calls it at least about once a second, also while connecting and while the server is
// silent, so a cancel takes effect within about a second.
int cancel_check(void* cancel, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/,
                 curl_off_t /*ulnow*/) {
  return static_cast<const std::atomic<bool>*>(cancel)->load(std::memory_order_relaxed) ? 1 : 0;
}

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
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(limits.connect_timeout_s));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(limits.stall_timeout_s));
  curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(limits.transfer_timeout_s));
  if (limits.cancel != nullptr) {
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, cancel_check);
    // curl's own API takes a void*; cancel_check only reads through it.
    curl_easy_setopt(c, CURLOPT_XFERINFODATA,
                     const_cast<void*>(static_cast<const void*>(limits.cancel)));
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
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

// The store sent a redirect to a URL curl may not follow (file://, ftp://...).
std::string redirect_refused(CURL* curl, const std::string& url) {
  char* target = nullptr;
  curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &target);  // where curl was sent last
  const std::string to =
      target != nullptr && url != target ? std::string(" to ") + target : std::string();
  return "the store redirected" + to + "; shareq follows redirects to http and https only";
}

// The store closed the connection before the end of the body.
std::string cut_short(CURL* curl) {
  curl_off_t received = 0;
  curl_off_t announced = -1;
  curl_easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
  curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
  std::string message = "the store closed the connection after " + std::to_string(received);
  if (announced >= 0)
    return message + " of the " + std::to_string(announced) + " bytes it announced";
  return message + " bytes, before the end of the body";
}

// curl's one code for its three limits, told apart by where the transfer was when it stopped.
std::string timed_out(CURL* curl, const TransferLimits& limits) {
  curl_off_t connect_us = 0;
  curl_off_t total_us = 0;
  curl_off_t received = 0;
  curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
  curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_us);
  curl_easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
  if (connect_us == 0) {
    return "no connection to the store within " + std::to_string(limits.connect_timeout_s) +
           " s (the connect limit)";
  }
  const std::string got = " (" + std::to_string(received) + " bytes received)";
  const curl_off_t whole_us = static_cast<curl_off_t>(limits.transfer_timeout_s) * 1'000'000;
  if (limits.transfer_timeout_s > 0 && total_us + 500'000 >= whole_us) {
    return "not done within " + std::to_string(limits.transfer_timeout_s) +
           " s (the limit for a whole transfer)" + got;
  }
  return "the store sent less than 1024 bytes/s for " + std::to_string(limits.stall_timeout_s) +
         " s (the stall limit)" + got;
}

// Runs the transfer; the error names the URL and what went wrong: `sink_error` (filled by the
// write callback when it gave up), the HTTP status, shareq's words for a store's faults that name
// the limit or the rule (redirects, a body cut short, the time limits), else curl's reason.
Result<bool> perform(CURL* curl, const std::string& url, const std::string& sink_error,
                     const TransferLimits& limits) {
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
  } else if (rc == CURLE_UNSUPPORTED_PROTOCOL && status >= 300 && status < 400) {
    message += redirect_refused(curl, url);
  } else if (rc == CURLE_TOO_MANY_REDIRECTS) {
    message += "more than " + std::to_string(kMaxRedirects) +
               " redirects; shareq follows at most " + std::to_string(kMaxRedirects);
  } else if (rc == CURLE_PARTIAL_FILE) {
    message += cut_short(curl);
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    message += timed_out(curl, limits);
  } else if (rc == CURLE_ABORTED_BY_CALLBACK && limits.cancel != nullptr) {
    message += "cancelled (the transfer was stopped before it finished)";
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
  Result<bool> done = perform(curl.get(), url, sink.error, limits);
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
  Result<bool> done = perform(curl.get(), url, sink.error, limits);
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
