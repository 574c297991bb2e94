// The fake controller view (fake_ctld.h).
#include "fake_ctld.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "config_state.hpp"
#include "log.hpp"
#include "slurm_conf_access.hpp"
#include "slurm_jobs.hpp"
#include "state_writer.hpp"
#include "warm_pools.hpp"

int fake_ctld_gpu_pos = -1;

namespace {

std::shared_ptr<const shareq::ctld::LoadedConfig> g_config;
uint64_t g_version = 0;
std::string g_state_dir;
std::string g_log;
std::vector<shareq::ctld::ReservedPool> g_reserved;

void append_log(const char* fmt, va_list args) {
  char line[2048];
  std::vsnprintf(line, sizeof line, fmt, args);
  g_log += line;
  g_log += '\n';
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

void copy_out(const std::vector<std::string>& names, char* buf, size_t size) {
  std::snprintf(buf, size, "%s", joined(names).c_str());
}

}  // namespace

namespace shareq::ctld {

std::shared_ptr<const LoadedConfig> current_config() { return g_config; }
std::string state_save_location() { return g_state_dir; }
int gpu_tres_pos() { return fake_ctld_gpu_pos; }
void set_reserved_pools(std::vector<ReservedPool> pools) { g_reserved = std::move(pools); }

void log_error(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  append_log(fmt, args);
  va_end(args);
}

void log_info(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  append_log(fmt, args);
  va_end(args);
}

}  // namespace shareq::ctld

extern "C" {

void fake_ctld_set_conf(const char* text) {
  char* errors = nullptr;
  shareq_conf_t* conf = shareq_conf_parse(text, "shareq.conf", &errors);
  if (conf == nullptr) {
    std::fprintf(stderr, "fake_ctld: bad configuration: %s\n", errors ? errors : "?");
    std::abort();
  }
  auto loaded = std::make_shared<shareq::ctld::LoadedConfig>(shareq::ctld::LoadedConfig{
      *conf, shareq::policy::Policy::compile(conf->config), ++g_version});
  shareq_conf_free(conf);
  g_config = std::move(loaded);
}

void fake_ctld_set_state_dir(const char* dir) { g_state_dir = dir; }
const char* fake_ctld_log(void) { return g_log.c_str(); }
void fake_ctld_log_clear(void) { g_log.clear(); }
size_t fake_ctld_reserved_count(void) { return g_reserved.size(); }
uint64_t fake_ctld_reserved_gpus(size_t i) { return g_reserved.at(i).gpus; }
size_t fake_ctld_reserved_nodes(size_t i) { return g_reserved.at(i).nodes.size(); }

void warm_test_job_started(job_record* job, int64_t now) {
  shareq::ctld::warm_job_started(job, now);
}
void warm_test_job_ended(job_record* job, int64_t now) { shareq::ctld::warm_job_ended(job, now); }
void warm_test_periodic(int64_t now) { shareq::ctld::warm_periodic(now); }
bool warm_test_pools_waiting(void) { return shareq::ctld::warm_pools_waiting(); }
void warm_test_flush_state(void) { shareq::ctld::flush_state_saves(); }
void warm_test_unload(void) { shareq::ctld::warm_unload(); }
bool warm_test_reserved_claim(job_record* job, int64_t now) {
  return shareq::ctld::warm_reserved_claim(job, now).has_value();
}

uint64_t warm_test_advice(job_record* job, const char* const* candidates, size_t count, int64_t now,
                          char* prefer, char* avoid, char* forbid, size_t size) {
  const std::vector<std::string> names(candidates, candidates + count);
  const shareq::warm::NodeAdvice advice = shareq::ctld::warm_advice(job, names, now);
  copy_out(advice.prefer, prefer, size);
  copy_out(advice.avoid, avoid, size);
  copy_out(advice.forbid, forbid, size);
  return advice.pool.value_or(0);
}

}  // extern "C"
