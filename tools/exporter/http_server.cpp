#include "http_server.hpp"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstring>

namespace shareq::exporter {

struct HttpServer::Impl {
  std::function<std::string()> metrics;
  MHD_Daemon* daemon = nullptr;
};

namespace {

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

constexpr const char* kLandingPage =
    "<!DOCTYPE html>\n<html><head><title>shareq exporter</title></head><body>\n"
    "<h1>shareq exporter</h1>\n"
    "<p>Prometheus metrics of shareq's shares, quotas, waits, preemptions and warm pools.</p>\n"
    "<p><a href=\"/metrics\">Metrics</a></p>\n"
    "<p>See shareq-exporter(8) and docs/monitoring.md.</p>\n</body></html>\n";

MHD_Result reply(MHD_Connection* connection, unsigned status, const std::string& body,
                 const char* type) {
  MHD_Response* response = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()),  // NOLINT: copied (MUST_COPY)
      MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  const MHD_Result result = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return result;
}

MHD_Result answer(void* cls, MHD_Connection* connection, const char* url, const char* method,
                  const char* /*version*/, const char* /*upload_data*/,
                  size_t* /*upload_data_size*/, void** /*con_cls*/) {
  auto* impl = static_cast<HttpServer::Impl*>(cls);
  try {
    if (std::strcmp(method, "GET") != 0 && std::strcmp(method, "HEAD") != 0) {
      return reply(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n", "text/plain");
    }
    if (std::strcmp(url, "/metrics") == 0) {
      return reply(connection, MHD_HTTP_OK, impl->metrics(), kMetricsType);
    }
    if (std::strcmp(url, "/") == 0) {
      return reply(connection, MHD_HTTP_OK, kLandingPage, "text/html; charset=utf-8");
    }
    return reply(connection, MHD_HTTP_NOT_FOUND, "not found; try /metrics\n", "text/plain");
  } catch (...) {
    return MHD_NO;  // libmicrohttpd is C: nothing may cross it
  }
}

// The address to bind, or an Error naming the host.
Result<sockaddr_storage> bind_address(const std::string& host, uint16_t port) {
  sockaddr_storage address{};
  if (host.empty()) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);  // NOLINT: sockaddr family cast
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_any;
    in6->sin6_port = htons(port);
    return address;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Error{"--web.listen-address", "cannot resolve host " + host + ": " + gai_strerror(rc)};
  }
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  return address;
}

}  // namespace

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  if (impl_ && impl_->daemon != nullptr) MHD_stop_daemon(impl_->daemon);
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& host, uint16_t port,
                                                      std::function<std::string()> metrics) {
  Result<sockaddr_storage> address = bind_address(host, port);
  if (!address) return address.error();
  auto impl = std::make_unique<Impl>();
  impl->metrics = std::move(metrics);
  sockaddr_storage bind_to = address.value();
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  if (bind_to.ss_family == AF_INET6) flags |= MHD_USE_DUAL_STACK;
  impl->daemon =
      MHD_start_daemon(flags, port, nullptr, nullptr, &answer, impl.get(), MHD_OPTION_SOCK_ADDR,
                       reinterpret_cast<sockaddr*>(&bind_to), MHD_OPTION_CONNECTION_LIMIT, 64U,
                       MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
  if (impl->daemon == nullptr) {
    return Error{"--web.listen-address",
                 "cannot listen on " + (host.empty() ? std::string() : host) + ":" +
                     std::to_string(port) + " (in use, or not an address of this host)"};
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

}  // namespace shareq::exporter
