// The exporter's HTTP side over libmicrohttpd: GET /metrics answers the latest snapshot (never a
// read of Slurm), GET / a small landing page; anything else 404, other methods 405.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "result.hpp"

namespace shareq::exporter {

class HttpServer {
 public:
  // Serves on host:port (host empty: every address) with a thread of libmicrohttpd's own;
  // `metrics` is called on that thread for each scrape and must only copy a cached text.
  static Result<std::unique_ptr<HttpServer>> start(const std::string& host, uint16_t port,
                                                   std::function<std::string()> metrics);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shareq::exporter
