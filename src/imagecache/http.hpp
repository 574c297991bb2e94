// HTTP(S) transfers with libcurl (internal header). Bounded: connect timeout, stall timeout,
// optional whole-transfer timeout; only http and https, also across redirects; no signals.
#pragma once

#include <cstdint>
#include <string>

#include "imagecache/store.hpp"
#include "result.hpp"

namespace shareq::imagecache {

// A test seam, never set in production: every connection a transfer opens (the first and each
// redirect's, whatever its URL's host and port) goes to the abstract Unix socket named
// `abstract_socket`, without a proxy, and no name is resolved. The fuzzer and unit tests feed
// curl's response parsing and the sinks below raw bytes from a server of their own this way.
struct TestConnections {
  std::string abstract_socket;
};

// GETs a small document (at most max_bytes). Errors: HTTP status >= 400, transfer failure,
// larger than max_bytes. The message names the URL and the cause.
Result<std::string> http_get_small(const std::string& url, size_t max_bytes,
                                   const TransferLimits& limits,
                                   const TestConnections* test = nullptr);

// GETs `url` into `fd`, feeding `hash`. Result: bytes written. Errors: HTTP status >= 400,
// connection closed early, timeout, write failure (its errno text, e.g. "No space left"), a body
// over limits.max_bytes (announced or sent). `report` (when given): the write's errno, the bytes
// written and the Content-Length, whether the transfer succeeded or not.
Result<int64_t> http_download(const std::string& url, int fd, Sha256& hash,
                              const TransferLimits& limits, const TestConnections* test = nullptr,
                              FetchReport* report = nullptr);

}  // namespace shareq::imagecache
