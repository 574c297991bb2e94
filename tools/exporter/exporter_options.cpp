#include "exporter_options.hpp"

#include <charconv>

#include "text.hpp"

namespace shareq::exporter {
namespace {

Result<bool> parse_address(std::string_view value, ExporterOptions& options) {
  const size_t colon = value.rfind(':');
  const Error bad{"--web.listen-address", text::quote(value) +
                                              " is not [HOST]:PORT; allowed: a port 1..65535 "
                                              "after ':', e.g. :9846 or 127.0.0.1:9846"};
  if (colon == std::string_view::npos) return bad;
  const std::string_view port = value.substr(colon + 1);
  unsigned number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || number == 0 ||
      number > 65535) {
    return bad;
  }
  std::string_view host = value.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [::1]:9846
  }
  options.listen_host = std::string(host);
  options.listen_port = static_cast<uint16_t>(number);
  return true;
}

Result<bool> parse_interval(std::string_view value, ExporterOptions& options) {
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || seconds < 1 ||
      seconds > 3600) {
    return Error{"--min-interval",
                 text::quote(value) + " is not a number of seconds; allowed: 1..3600"};
  }
  options.min_interval_s = seconds;
  return true;
}

Result<bool> set_option(std::string_view name, std::string_view value, ExporterOptions& options) {
  if (name == "--web.listen-address") return parse_address(value, options);
  if (name == "--min-interval") return parse_interval(value, options);
  if (value.empty()) return Error{std::string(name), "needs a value"};
  if (name == "--config") {
    options.config = std::string(value);
  } else {
    options.state_dir = std::string(value);
  }
  return true;
}

}  // namespace

Result<ExporterOptions> parse_exporter_options(std::span<const std::string> args) {
  ExporterOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      continue;
    }
    if (arg == "--version") {
      options.version = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    if (name != "--web.listen-address" && name != "--min-interval" && name != "--config" &&
        name != "--state-dir") {
      return Error{std::string(arg),
                   "unknown option; allowed: --web.listen-address, --min-interval, --config, "
                   "--state-dir, --help, --version"};
    }
    std::string_view value;
    if (eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Error{std::string(name), "needs a value"};
    }
    const Result<bool> set = set_option(name, value, options);
    if (!set) return set.error();
  }
  return options;
}

std::string exporter_usage() {
  return "usage: shareq-exporter [--web.listen-address=[HOST]:PORT] [--min-interval=SECONDS]\n"
         "                       [--config=FILE] [--state-dir=DIR]\n"
         "  --web.listen-address  where to serve /metrics (default :9846, every address)\n"
         "  --min-interval        seconds between two rounds of reads from slurmctld and\n"
         "                        slurmdbd; every scrape in between gets the same snapshot\n"
         "                        (default 15, allowed 1..3600)\n"
         "  --config              shareq.conf (default: beside $SLURM_CONF, as the plugins)\n"
         "  --state-dir           where the counters are kept across restarts\n"
         "                        (default /var/lib/shareq-exporter)\n";
}

}  // namespace shareq::exporter
