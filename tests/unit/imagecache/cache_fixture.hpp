// Helpers for image-cache tests: a temporary directory, a directory image store, digests, and a
// local HTTP store (http_store.py) started with a bounded wait and stopped with the test.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "imagecache/image_cache.hpp"
#include "imagecache/sha256.hpp"

namespace shareq::imagecache::testing {

inline std::string Sha(const std::string& data) {
  Sha256 hash;
  hash.update(data.data(), data.size());
  return hash.finish();
}

// Deterministic pseudo-random bytes.
inline std::string Bytes(size_t size, unsigned seed) {
  std::string out(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return out;
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

inline unsigned Mode(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0xffff;
}

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/shareq-cache-test-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The files of a directory, without "." and "..", sorted.
inline std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A directory store: put() writes NAME and NAME.sha256 ("HEX  NAME\n").
class Store {
 public:
  explicit Store(std::string dir) : dir_(std::move(dir)) {
    std::filesystem::create_directory(dir_);
  }
  [[nodiscard]] const std::string& dir() const { return dir_; }
  // Returns the digest.
  std::string put(const std::string& name, const std::string& data) {
    WriteFile(dir_ + "/" + name, data);
    const std::string digest = Sha(data);
    WriteFile(dir_ + "/" + name + ".sha256", digest + "  " + name + "\n");
    return digest;
  }

 private:
  std::string dir_;
};

inline ImageRef Ref(const std::string& name) { return ImageRef{name, std::nullopt}; }
inline ImageRef Ref(const std::string& name, const std::string& digest) {
  return ImageRef{name, digest};
}

// http_store.py serving `root` on 127.0.0.1; port() is 0 when it did not start within 10 s.
class HttpStore {
 public:
  HttpStore(const std::string& root, const std::string& log) {
    ::unsetenv("http_proxy");
    ::unsetenv("HTTP_PROXY");
    ::unsetenv("https_proxy");
    ::unsetenv("HTTPS_PROXY");
    ::unsetenv("all_proxy");
    ::unsetenv("ALL_PROXY");
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::execl("/usr/bin/python3", "python3", SHAREQ_HTTP_STORE_PY, root.c_str(), log.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    port_ = read_port(fds[0]);
    ::close(fds[0]);
  }
  ~HttpStore() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string url(const std::string& mode) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + mode;
  }

 private:
  static int read_port(int fd) {
    std::string line;
    for (int waited = 0; waited < 100 && line.find('\n') == std::string::npos; ++waited) {
      struct pollfd p = {fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[32];
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    return line.find('\n') == std::string::npos ? 0 : std::atoi(line.c_str());
  }
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace shareq::imagecache::testing
