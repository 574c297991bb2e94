// shareq_node.so's one entry point: the C table of node_api.h over node.hpp. Each function
// loads shareq.conf, translates the C structs, and catches every exception, so nothing C++
// crosses into spank_shareq.so.
#include "node_api.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "boundary.hpp"
#include "config.hpp"
#include "hardware_spec.hpp"
#include "hwtopo/topology.hpp"
#include "node.hpp"
#include "text.hpp"

SHAREQ_EXPORT const shareq_node_api_t* shareq_node_api(uint32_t abi_version);

namespace shareq::spank_plugin::node {
namespace {

using shareq::plugin::guarded;

std::string text(const char* s) { return s != nullptr ? s : ""; }

void ignore_log(shareq_node_log_level /*level*/, const char* /*line*/) {}
shareq_node_log_fn or_ignore(shareq_node_log_fn log) { return log != nullptr ? log : ignore_log; }

// Every problem in shareq.conf, one log line each; nullopt when it cannot be used.
std::optional<Config> load_config(const char* path, shareq_node_log_fn log) {
  ParseResult parsed = load_config_file(text(path));
  if (!parsed.config) {
    for (const ConfigError& e : parsed.errors) log(SHAREQ_NODE_LOG_ERROR, e.to_string().c_str());
  }
  return std::move(parsed.config);
}

JobFacts facts_of(const shareq_node_job_t& job) {
  JobFacts f;
  f.job_id = job.job_id;
  f.uid = job.uid;
  f.gid = job.gid;
  f.node = text(job.node);
  f.image = text(job.image);
  f.image_digest = text(job.image_digest);
  f.warm_name = text(job.warm_name);
  f.keep_alive_s = job.keep_alive_s;
  f.warm_ended = split_warm_names(text(job.warm_ended));
  return f;
}

LogFn info_to(shareq_node_log_fn log) {
  return [log](const std::string& line) { log(SHAREQ_NODE_LOG_INFO, line.c_str()); };
}

void report(shareq_node_log_fn log, const char* where, const char* what) {
  log(SHAREQ_NODE_LOG_ERROR, (std::string(where) + ": " + what).c_str());
}

int c_job_prolog(const char* shareq_conf, const shareq_node_job_t* job, int64_t now,
                 shareq_node_log_fn log) {
  log = or_ignore(log);
  return guarded(
      0,
      [&] {
        const auto config = load_config(shareq_conf, log);
        if (config && job != nullptr) job_prolog(*config, facts_of(*job), now, info_to(log));
        return 0;
      },
      [&](const char* what) { report(log, "prolog", what); });
}

int c_job_epilog(const char* shareq_conf, const shareq_node_job_t* job, int64_t now,
                 shareq_node_log_fn log) {
  log = or_ignore(log);
  return guarded(
      0,
      [&] {
        const auto config = load_config(shareq_conf, log);
        if (config && job != nullptr) job_epilog(*config, facts_of(*job), now, info_to(log));
        return 0;
      },
      [&](const char* what) { report(log, "epilog", what); });
}

void c_free_prepared(shareq_node_prepared_t* p) {
  if (p == nullptr) return;
  std::free(p->image_path);
  std::free(p->digest);
  std::free(p->warm_dir);
  std::free(p->error);
  *p = shareq_node_prepared_t{};
}

int c_read_prepared(const char* shareq_conf, const char* node_name, uint32_t job_id,
                    shareq_node_prepared_t* out, shareq_node_log_fn log) {
  log = or_ignore(log);
  return guarded(
      -1,
      [&] {
        const auto config = load_config(shareq_conf, log);
        if (!config || out == nullptr) return -1;
        const auto prepared = read_prepared(*config, text(node_name), job_id);
        if (!prepared) return 0;
        *out = shareq_node_prepared_t{
            ::strdup(prepared->image_path.c_str()), ::strdup(prepared->digest.c_str()),
            ::strdup(prepared->warm_dir.c_str()), ::strdup(prepared->error.c_str())};
        if (out->image_path == nullptr || out->digest == nullptr || out->warm_dir == nullptr ||
            out->error == nullptr) {
          c_free_prepared(out);
          return -1;
        }
        return 1;
      },
      [&](const char* what) { report(log, "task", what); });
}

std::optional<int64_t> checked(int64_t value) {
  return value >= 0 ? std::optional<int64_t>(value) : std::nullopt;
}

// The verdict line of one family's hardware check (the words of shareq node-check).
std::pair<bool, std::string> hardware_verdict(const shareq_node_hardware_t& expected,
                                              const char* topology_xml) {
  const std::string family = text(expected.family);
  const HardwareSpec spec{checked(expected.gpus), checked(expected.numa), checked(expected.cores)};
  const std::optional<std::string> xml =
      text(topology_xml).empty() ? std::nullopt : std::optional<std::string>(topology_xml);
  const Result<HardwareFacts> facts = hwtopo::read_hardware(xml);
  if (!facts) return {false, "shareq: hardware: cannot check: " + facts.error().to_string()};
  const std::vector<std::string> mismatches = hardware_mismatches(facts.value(), spec, family);
  if (!mismatches.empty()) return {false, "shareq: hardware: " + text::join(mismatches, "; ")};
  return {true, "shareq: hardware: ok: " + describe_hardware(facts.value()) + ", as family " +
                    family + " expects"};
}

int c_check_hardware(const shareq_node_hardware_t* expected, const char* topology_xml, char* line,
                     uint64_t line_size) {
  auto put = [&](const std::string& text) {
    if (line != nullptr && line_size > 0) {
      std::snprintf(line, static_cast<size_t>(line_size), "%s", text.c_str());
    }
  };
  return guarded(
      0,
      [&] {
        if (expected == nullptr) {
          put("shareq: hardware: cannot check: no expected hardware given");
          return 0;
        }
        const auto [healthy, verdict] = hardware_verdict(*expected, topology_xml);
        put(verdict);
        return healthy ? 1 : 0;
      },
      [&](const char* what) { put(std::string("shareq: hardware: cannot check: ") + what); });
}

constexpr shareq_node_api_t kApi = {SHAREQ_NODE_ABI_VERSION, c_job_prolog,    c_job_epilog,
                                    c_read_prepared,         c_free_prepared, c_check_hardware};

}  // namespace
}  // namespace shareq::spank_plugin::node

extern "C" const shareq_node_api_t* shareq_node_api(uint32_t abi_version) {
  return abi_version == SHAREQ_NODE_ABI_VERSION ? &shareq::spank_plugin::node::kApi : nullptr;
}
