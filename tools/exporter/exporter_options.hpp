// shareq-exporter's command line. Pure: parsing only.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "result.hpp"

namespace shareq::exporter {

inline constexpr uint16_t kDefaultPort = 9846;

struct ExporterOptions {
  std::string listen_host;              // empty: every address
  uint16_t listen_port = kDefaultPort;  // --web.listen-address=[HOST]:PORT (default :9846)
  int64_t min_interval_s = 15;          // --min-interval=SECONDS: one round of reads per interval
  std::optional<std::string> config;    // --config=FILE (default: where the plugins find it)
  std::string state_dir = "/var/lib/shareq-exporter";  // --state-dir=DIR (counters.state)
  bool help = false;                                   // --help
  bool version = false;                                // --version
};

// Both "--opt VALUE" and "--opt=VALUE". An Error names the option and what is allowed.
Result<ExporterOptions> parse_exporter_options(std::span<const std::string> args);

std::string exporter_usage();

}  // namespace shareq::exporter
