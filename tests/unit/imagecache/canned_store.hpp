// A store that answers every connection with the same canned bytes, for http.hpp's
// TestConnections (fuzz_http_response and http_canned_test): a listener on an abstract Unix
// socket (no file; named after the process) and one thread, both for the life of the process,
// that write the current response to each connection they accept and shut it for writing, so
// curl reads the response and then end-of-file.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "imagecache/http.hpp"

namespace shareq::imagecache::testing {

class CannedStore {
 public:
  explicit CannedStore(std::string response) {
    Server& server = the_server();
    const std::lock_guard lock(server.mutex);
    server.response = std::move(response);
    server.accepted = 0;
    connections_.abstract_socket = server.name;
  }
  ~CannedStore() {
    Server& server = the_server();
    const std::lock_guard lock(server.mutex);
    for (const int fd : server.open) ::close(fd);
    server.open.clear();
  }
  CannedStore(const CannedStore&) = delete;
  CannedStore& operator=(const CannedStore&) = delete;

  [[nodiscard]] const TestConnections* connections() const { return &connections_; }
  // Connections curl opened (the first request and one per redirect) since the latest store
  // was made.
  [[nodiscard]] static size_t opened() {
    Server& server = the_server();
    const std::lock_guard lock(server.mutex);
    return server.accepted;
  }

 private:
  struct Server {
    int listener = -1;
    std::string name;
    std::mutex mutex;
    std::string response;   // under mutex
    std::vector<int> open;  // under mutex: connections answered, closed by ~CannedStore
    size_t accepted = 0;    // under mutex

    void answer_forever() {
      while (true) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        std::string bytes;
        {
          const std::lock_guard lock(mutex);
          bytes = response;
          open.push_back(fd);
          ++accepted;
        }
        // At most a few KiB, well under a socket buffer: never blocks.
        // MSG_NOSIGNAL: a client that already gave up must not kill the process with SIGPIPE.
        if (!bytes.empty() && ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) < 0) continue;
        ::shutdown(fd, SHUT_WR);
      }
    }
  };

  static Server& the_server() {
    static Server* server = [] {
      auto* s = new Server;  // never freed: its thread runs until the process ends
      s->name = "shareq-canned-store-" + std::to_string(::getpid());
      s->listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      s->name.copy(address.sun_path + 1, sizeof address.sun_path - 2);  // [0] '\0': abstract
      const auto length =
          static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + s->name.size());
      if (s->listener < 0 ||
          ::bind(s->listener, reinterpret_cast<const sockaddr*>(&address), length) != 0 ||
          ::listen(s->listener, 64) != 0) {
        std::abort();
      }
      std::thread([s] { s->answer_forever(); }).detach();
      return s;
    }();
    return *server;
  }

  TestConnections connections_;
};

}  // namespace shareq::imagecache::testing
