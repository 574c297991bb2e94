#include "imagecache/store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string_view>
#include <vector>

#include "imagecache/fs_util.hpp"
#include "imagecache/http.hpp"
#include "imagecache/sha256.hpp"
#include "warm/digest_file.hpp"

namespace shareq::imagecache {
namespace {

constexpr size_t kMaxDigestFile = 4096;
constexpr size_t kChunk = size_t{1} << 20;

Error image_error(const std::string& name, const std::string& cause) {
  return Error{"image", "image " + name + ": " + cause};
}

// The words of http.cpp's timed_out for the same limit, so both stores read alike.
Error copy_timed_out(const std::string& name, const std::string& path, int64_t timeout_s,
                     const FetchReport& report) {
  return image_error(name, "copying " + path + ": not done within " + std::to_string(timeout_s) +
                               " s (the limit for a whole transfer) (" +
                               std::to_string(report.written) + " of " +
                               std::to_string(report.announced) + " bytes copied)");
}

// Copies `path` into `out`. timeout_s (when > 0) is looked at between chunks: see
// TransferLimits::transfer_timeout_s for what it cannot cut short.
Result<int64_t> copy_file(const std::string& name, const std::string& path, int out, Sha256& hash,
                          FetchReport& report, int64_t timeout_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  fs::UniqueFd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return image_error(name, "cannot open " + path + ": " + fs::errno_text(errno));
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return image_error(name, path + " is not a regular file");
  }
  report.announced = st.st_size;
  std::vector<char> buf(kChunk);
  int64_t total = 0;
  while (true) {
    const ssize_t n = ::read(in.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return image_error(name, "reading " + path + ": " + fs::errno_text(errno));
    if (n == 0) break;
    hash.update(buf.data(), static_cast<size_t>(n));
    if (const int err = fs::write_all(out, buf.data(), static_cast<size_t>(n)); err != 0) {
      report.write_errno = err;
      return image_error(name, "writing to the cache: " + fs::errno_text(err));
    }
    total += n;
    report.written = total;
    if (timeout_s > 0 && Clock::now() >= deadline) {
      return copy_timed_out(name, path, timeout_s, report);
    }
  }
  if (total != st.st_size) {
    return image_error(name, "short read from " + path + ": got " + std::to_string(total) + " of " +
                                 std::to_string(st.st_size) + " bytes");
  }
  return total;
}

}  // namespace

Result<ImageStore> ImageStore::parse(const std::string& location) {
  ImageStore store;
  store.location_ = location;
  while (store.location_.size() > 1 && store.location_.back() == '/') store.location_.pop_back();
  // URL schemes are case-insensitive (RFC 3986 3.1): "HTTP://host/x" is an http store, its
  // scheme kept in lower case for libcurl and messages.
  bool http = false;
  for (const std::string_view scheme : {"http://", "https://"}) {
    const bool match =
        location.size() >= scheme.size() &&
        std::equal(scheme.begin(), scheme.end(), location.begin(), [](char want, char got) {
          return want == (got >= 'A' && got <= 'Z' ? static_cast<char>(got - 'A' + 'a') : got);
        });
    if (match) {
      http = true;
      store.location_.replace(0, scheme.size(), scheme);
    }
  }
  if (location.empty()) return Error{"ImageStore", "no image store is configured"};
  if (!http && location.front() != '/') {
    return Error{"ImageStore",
                 "\"" + location + "\" is neither an absolute directory nor an http(s):// URL"};
  }
  store.http_ = http;
  return store;
}

std::string ImageStore::url_of(const std::string& name) const { return location_ + "/" + name; }

Result<std::string> ImageStore::published_digest(const std::string& name,
                                                 const TransferLimits& limits) const {
  const std::string where = url_of(name) + ".sha256";
  Result<std::string> contents = http_ ? http_get_small(where, kMaxDigestFile, limits)
                                       : fs::read_small_file(where, kMaxDigestFile);
  if (!contents) {
    return image_error(name, "cannot read its published digest: " + contents.error().message);
  }
  return warm::parse_digest_file(contents.value(), name);
}

std::string larger_than_the_cache(int64_t max_bytes) {
  return "larger than the image cache (ImageCacheSize, " + std::to_string(max_bytes) +
         " bytes); not cached";
}

int64_t ImageStore::size_hint(const std::string& name) const {
  struct stat st {};
  if (http_ || ::stat(url_of(name).c_str(), &st) != 0) return -1;
  return st.st_size;
}

Result<int64_t> ImageStore::fetch(const std::string& name, int fd, Sha256& hash,
                                  const TransferLimits& limits, FetchReport* report) const {
  FetchReport ignored;
  FetchReport& out = report != nullptr ? *report : ignored;
  if (!http_) return copy_file(name, url_of(name), fd, hash, out, limits.transfer_timeout_s);
  Result<int64_t> got = http_download(url_of(name), fd, hash, limits, nullptr, &out);
  if (!got) return image_error(name, got.error().message);
  return got;
}

}  // namespace shareq::imagecache
