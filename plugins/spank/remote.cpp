#include "remote.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

#include "config.hpp"
#include "node.hpp"
#include "slurm_conf_path.hpp"
#include "submission.hpp"

namespace shareq::spank_plugin {
namespace {

void log_info(const std::string& line) { slurm_info("shareq: %s", line.c_str()); }
void log_error(const std::string& line) { slurm_error("shareq: %s", line.c_str()); }

std::string beside_slurm_conf(const std::string& slurm_conf) {
  const size_t slash = slurm_conf.rfind('/');
  return (slash == std::string::npos ? std::string(".") : slurm_conf.substr(0, slash)) +
         "/shareq.conf";
}

std::optional<Config> load_config() {
  const std::string path = beside_slurm_conf(slurm_conf_path());
  ParseResult parsed = load_config_file(path);
  if (!parsed.config) {
    for (const ConfigError& e : parsed.errors) log_error(e.to_string());
    return std::nullopt;
  }
  return std::move(parsed.config);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// In the job script context the job's spank_job_env is in the environment as SPANK_NAME.
node::JobFacts job_script_facts(spank_t sp) {
  node::JobFacts f;
  uid_t uid = 0;
  gid_t gid = 0;
  spank_get_item(sp, S_JOB_ID, &f.job_id);
  spank_get_item(sp, S_JOB_UID, &uid);
  spank_get_item(sp, S_JOB_GID, &gid);
  f.uid = uid;
  f.gid = gid;
  f.node = env("SLURMD_NODENAME");
  f.image = env("SPANK_SHAREQ_IMAGE");
  f.image_digest = env("SPANK_SHAREQ_IMAGE_DIGEST");
  f.warm_name = env("SPANK_SHAREQ_WARM_NAME");
  const std::string keep = env("SPANK_SHAREQ_KEEP_ALIVE");
  if (auto k = parse_keep_alive(keep, INT64_MAX)) f.keep_alive_s = k.value();
  return f;
}

// The kept error of this task (task_init_privileged and task_init run in the same forked task
// process, one after the other).
std::string g_task_error;

}  // namespace

int job_prolog(spank_t sp) {
  const auto config = load_config();
  if (!config) return 0;
  const node::JobFacts facts = job_script_facts(sp);
  if (facts.image.empty() && facts.warm_name.empty()) return 0;
  node::job_prolog(*config, facts, std::time(nullptr), log_info);
  return 0;
}

int job_epilog(spank_t sp) {
  const auto config = load_config();
  if (!config) return 0;
  const node::JobFacts facts = job_script_facts(sp);
  node::job_epilog(*config, facts, std::time(nullptr), log_info);
  return 0;
}

int task_init_privileged(spank_t sp) {
  g_task_error.clear();
  uint32_t job_id = 0;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) return 0;
  char image[512] = {0};
  const bool wants_image =
      spank_getenv(sp, "_SLURM_SPANK_OPTION_shareq_image", image, sizeof image) ==
          ESPANK_SUCCESS ||
      spank_getenv(sp, "SHAREQ_IMAGE", image, sizeof image) == ESPANK_SUCCESS;
  const auto config = load_config();
  if (!config) {
    if (wants_image) g_task_error = "shareq.conf cannot be read on this node";
    return 0;
  }
  const auto prepared = node::read_prepared(*config, env("SLURMD_NODENAME"), job_id);
  if (!prepared) {
    if (wants_image) {
      g_task_error = "image " + std::string(image) +
                     ": the node prolog did not prepare it (slurm.conf needs PrologFlags=Alloc)";
    }
    return 0;
  }
  if (!prepared->error.empty()) {
    g_task_error = prepared->error;
    return 0;
  }
  if (!prepared->image_path.empty()) {
    spank_setenv(sp, "SHAREQ_IMAGE_PATH", prepared->image_path.c_str(), 1);
  }
  if (!prepared->warm_dir.empty()) {
    spank_setenv(sp, "SHAREQ_WARM_DIR", prepared->warm_dir.c_str(), 1);
  }
  return 0;
}

int task_init(spank_t /*sp*/) {
  if (g_task_error.empty()) return 0;
  const std::string line = "shareq: error: " + g_task_error + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  log_error("task: " + g_task_error);
  return -1;
}

}  // namespace shareq::spank_plugin
