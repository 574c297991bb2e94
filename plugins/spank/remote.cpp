#include "remote.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>

#include "config.hpp"
#include "node_library.hpp"
#include "slurm_conf_path.hpp"
#include "submission.hpp"

namespace shareq::spank_plugin {
namespace {

void log_line(shareq_node_log_level level, const char* line) {
  if (level == SHAREQ_NODE_LOG_ERROR) {
    slurm_error("shareq: %s", line);
  } else {
    slurm_info("shareq: %s", line);
  }
}
void log_error(const std::string& line) { slurm_error("shareq: %s", line.c_str()); }

std::string shareq_conf_path() { return shareq_conf_beside(slurm_conf_path()); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// What the job script context knows of the job; the strings back the C struct's pointers.
struct JobScriptFacts {
  std::string node, image, image_digest, warm_name, warm_ended;
  shareq_node_job_t job{};
};

// In the job script context the job's spank_job_env is in the environment as SPANK_NAME.
void read_job_script_facts(spank_t sp, JobScriptFacts& f) {
  uid_t uid = 0;
  gid_t gid = 0;
  spank_get_item(sp, S_JOB_ID, &f.job.job_id);
  spank_get_item(sp, S_JOB_UID, &uid);
  spank_get_item(sp, S_JOB_GID, &gid);
  f.job.uid = uid;
  f.job.gid = gid;
  f.node = env("SLURMD_NODENAME");
  f.image = env("SPANK_SHAREQ_IMAGE");
  f.image_digest = env("SPANK_SHAREQ_IMAGE_DIGEST");
  f.warm_name = env("SPANK_SHAREQ_WARM_NAME");
  f.warm_ended = env("SPANK_SHAREQ_WARM_ENDED");
  const std::string keep = env("SPANK_SHAREQ_KEEP_ALIVE");
  if (auto k = parse_keep_alive(keep, INT64_MAX)) f.job.keep_alive_s = k.value();
  f.job.node = f.node.c_str();
  f.job.image = f.image.c_str();
  f.job.image_digest = f.image_digest.c_str();
  f.job.warm_name = f.warm_name.c_str();
  f.job.warm_ended = f.warm_ended.c_str();
}

// The node library, or null after logging why it is missing.
const shareq_node_api_t* node_api(const char* phase) {
  const NodeLibrary& lib = node_library();
  if (lib.api == nullptr) log_error(std::string(phase) + ": " + lib.error);
  return lib.api;
}

// The kept error of this task (task_init_privileged and task_init run in the same forked task
// process, one after the other).
std::string g_task_error;

}  // namespace

void preload_node_library() { (void)node_api("init"); }

int job_prolog(spank_t sp) {
  JobScriptFacts facts;
  read_job_script_facts(sp, facts);
  if (facts.image.empty() && facts.warm_name.empty() && facts.warm_ended.empty()) return 0;
  const shareq_node_api_t* api = node_api("prolog");
  if (api == nullptr) return 0;  // the job's tasks fail with the same message (task_init)
  api->job_prolog(shareq_conf_path().c_str(), &facts.job, std::time(nullptr), log_line);
  return 0;
}

int job_epilog(spank_t sp) {
  JobScriptFacts facts;
  read_job_script_facts(sp, facts);
  const shareq_node_api_t* api = node_api("epilog");
  if (api == nullptr) return 0;
  api->job_epilog(shareq_conf_path().c_str(), &facts.job, std::time(nullptr), log_line);
  return 0;
}

int task_init_privileged(spank_t sp) {
  g_task_error.clear();
  uint32_t job_id = 0;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) return 0;
  // The job's spank_job_env (as accepted by slurmctld) shows as SLURM_SPANK_NAME in the job's
  // environment; srun's own option and environment variable come before it reaches there.
  char image[512] = {0};
  const bool wants_image =
      spank_getenv(sp, "SLURM_SPANK_SHAREQ_IMAGE", image, sizeof image) == ESPANK_SUCCESS ||
      spank_getenv(sp, "_SLURM_SPANK_OPTION_shareq_image", image, sizeof image) == ESPANK_SUCCESS ||
      spank_getenv(sp, "SHAREQ_IMAGE", image, sizeof image) == ESPANK_SUCCESS;
  char warm_name[64] = {0};
  const bool wants_warm_dir = spank_getenv(sp, "SLURM_SPANK_SHAREQ_WARM_NAME", warm_name,
                                           sizeof warm_name) == ESPANK_SUCCESS;
  const NodeLibrary& lib = node_library();
  if (lib.api == nullptr) {
    // Logged by the step's init. A job that needs neither an image nor a warm directory runs.
    if (wants_image) {
      g_task_error = "image " + std::string(image) + ": " + lib.error;
    } else if (wants_warm_dir) {
      g_task_error = "warm directory " + std::string(warm_name) + ": " + lib.error;
    }
    return 0;
  }
  shareq_node_prepared_t prepared{};
  const int found = lib.api->read_prepared(
      shareq_conf_path().c_str(), env("SLURMD_NODENAME").c_str(), job_id, &prepared, log_line);
  if (found < 0) {
    if (wants_image) g_task_error = "shareq.conf cannot be read on this node";
    return 0;
  }
  if (found == 0) {
    if (wants_image) {
      g_task_error = "image " + std::string(image) +
                     ": the node prolog did not prepare it (slurm.conf needs PrologFlags=Alloc)";
    }
    return 0;
  }
  if (prepared.error[0] != '\0') {
    g_task_error = prepared.error;
  } else {
    if (prepared.image_path[0] != '\0') {
      spank_setenv(sp, "SHAREQ_IMAGE_PATH", prepared.image_path, 1);
    }
    if (prepared.warm_dir[0] != '\0') spank_setenv(sp, "SHAREQ_WARM_DIR", prepared.warm_dir, 1);
  }
  lib.api->free_prepared(&prepared);
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
