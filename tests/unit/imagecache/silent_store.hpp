// A store that never answers, for TransferLimits::cancel (http_cancel_test, and the shim's
// image_asker_test): a listener on 127.0.0.1 (a port of its own) whose connections the test
// accepts and reads the request from, and then leaves without a byte of answer until the store
// is destroyed.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace shareq::imagecache::testing {

class SilentStore {
 public:
  SilentStore() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener_ < 0 ||
        ::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      std::abort();
    }
    port_ = ntohs(address.sin_port);
  }
  ~SilentStore() {
    if (connection_ >= 0) ::close(connection_);
    ::close(listener_);
  }
  SilentStore(const SilentStore&) = delete;
  SilentStore& operator=(const SilentStore&) = delete;

  // The store's location (ImageStore=), e.g. "http://127.0.0.1:40123/images".
  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/images";
  }

  // Accepts the next connection and reads its request up to the blank line, leaving it open and
  // unanswered; false when none came within `within`. The previous connection is closed.
  bool received_request(std::chrono::milliseconds within) {
    using std::chrono::steady_clock;
    if (connection_ >= 0) ::close(connection_);
    connection_ = -1;
    const auto deadline = steady_clock::now() + within;
    std::string request;
    while (request.find("\r\n\r\n") == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd waiting{connection_ >= 0 ? connection_ : listener_, POLLIN, 0};
      if (::poll(&waiting, 1, static_cast<int>(left.count())) <= 0) continue;
      if (connection_ < 0) {
        connection_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        continue;
      }
      char bytes[1024];
      const ssize_t n = ::recv(connection_, bytes, sizeof bytes, 0);
      if (n <= 0) return false;
      request.append(bytes, static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int listener_ = -1;
  int connection_ = -1;
  int port_ = 0;
};

}  // namespace shareq::imagecache::testing
