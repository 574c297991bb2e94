#include "remote.hpp"

#include <dlfcn.h>
#include <slurm/slurm.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "config.hpp"
#include "node_drain.hpp"
#include "node_library.hpp"
#include "node_paths.hpp"
#include "slurm_conf_path.hpp"
#include "flags.hpp"

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

// What a step's job asks of the node side.
struct StepNeeds {
  std::string image;      // the job's image, or empty
  std::string warm_name;  // a warm directory slurmctld named in the job's environment, or empty
  bool prepared = false;  // its prolog left an outcome on this node (an image, a warm directory)
  [[nodiscard]] bool any() const { return !image.empty() || !warm_name.empty() || prepared; }
};

std::string job_env(spank_t sp, const char* name) {
  char value[512] = {0};
  return spank_getenv(sp, name, value, sizeof value) == ESPANK_SUCCESS ? value : "";
}

// Whether the job's prolog left an outcome on this node: the only way a job without --image
// gets a warm directory (slurmctld names it in the prolog's environment, not the job's). True
// when shareq.conf cannot be read here: the node library then says why.
bool prolog_left_an_outcome(uint32_t job_id) {
  const ParseResult config = load_config_file(shareq_conf_path());
  if (!config.config) return true;
  const std::string file =
      prepared_file(node_paths(*config.config, env("SLURMD_NODENAME")), job_id);
  return ::access(file.c_str(), F_OK) == 0;
}

StepNeeds step_needs(spank_t sp, uint32_t job_id) {
  StepNeeds needs;
  // The job's spank_job_env (as accepted by slurmctld) shows as SLURM_SPANK_NAME in the job's
  // environment; srun's own option and environment variable come before it reaches there.
  for (const char* name :
       {"SLURM_SPANK_SHAREQ_IMAGE", "_SLURM_SPANK_OPTION_shareq_image", "SHAREQ_IMAGE"}) {
    needs.image = job_env(sp, name);
    if (!needs.image.empty()) break;
  }
  needs.warm_name = job_env(sp, "SLURM_SPANK_SHAREQ_WARM_NAME");
  if (needs.image.empty() && needs.warm_name.empty())
    needs.prepared = prolog_left_an_outcome(job_id);
  return needs;
}

uint32_t job_id_of(spank_t sp) {
  uint32_t job_id = 0;
  return spank_get_item(sp, S_JOB_ID, &job_id) == ESPANK_SUCCESS ? job_id : 0;
}

// The plugin argument hwloc_xml=PATH (plugstack.conf), "%n" replaced by the node's name; "" when
// it is not given.
std::string topology_xml_argument(int ac, char** av, const std::string& node) {
  constexpr std::string_view kKey = "hwloc_xml=";
  std::string path;
  for (int i = 0; i < ac && av != nullptr; ++i) {
    const std::string_view arg = av[i] != nullptr ? av[i] : "";
    if (arg.starts_with(kKey)) path = std::string(arg.substr(kKey.size()));
  }
  for (size_t at = path.find("%n"); at != std::string::npos; at = path.find("%n", at)) {
    path.replace(at, 2, node);
    at += node.size();
  }
  return path;
}

// From Slurm 23.11 an RPC needs the auth and hash plugins loaded by the calling process (else
// libslurm ends the process: "fatal: No hash plugins loaded. Was slurm_init() called ..."), and
// slurmstepd does not load them in the mode that runs a SPANK job prolog. Calls the process's
// own auth_g_init and hash_g_init, looked up at run time: the plugin is also loaded by sbatch and
// srun, and 22.05 has no auth_g_init (its RPCs load the auth plugin themselves; calling its
// hash_g_init does no harm). Both return at once when already loaded.
void load_rpc_plugins() {
  using InitFn = int (*)();
  for (const char* name : {"auth_g_init", "hash_g_init"}) {
    if (auto init = reinterpret_cast<InitFn>(::dlsym(RTLD_DEFAULT, name)); init != nullptr) {
      if (init() != SLURM_SUCCESS) log_error(std::string("prolog: hardware: ") + name + " failed");
    }
  }
}

// Drains `node` with `reason` through slurmctld (this runs as root in slurmd's job script
// context); slurmctld keeps this reason over its own "Prolog error".
void drain_node(const std::string& node, const std::string& reason) {
  load_rpc_plugins();
  if (const int code = request_node_drain(node, reason); code != 0) {
    log_error("prolog: hardware: cannot drain " + node + ": " + slurm_strerror(code) +
              " (the failed prolog drains it with Slurm's reason)");
  }
}

// Milliseconds since `started`, for the check's log line (its cost in the prolog is measured by
// bench/cluster/start_latency.py --hardware-check, which reads the line).
double ms_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
      .count();
}

// The hardware check of job_prolog: 0 when the node may run the job, else -1 (node drained).
// Its line ends with the job and the check's time: reading shareq.conf, loading the node library
// (the first time in this prolog process; said apart, as a job with an image loads it anyway),
// reading the topology and comparing.
int check_hardware(int ac, char** av, const std::string& node, uint32_t job_id) {
  const auto started = std::chrono::steady_clock::now();
  const std::string partition = env("SLURM_JOB_PARTITION");
  if (partition.empty()) return 0;
  const ParseResult config = load_config_file(shareq_conf_path());
  if (!config.config) return 0;  // the image side logs why; without it nothing is expected
  const Family* family = config.config->family_of_partition(partition);
  if (family == nullptr || family->hardware.empty()) return 0;
  std::array<char, 512> line{};
  const auto loading = std::chrono::steady_clock::now();
  const NodeLibrary& lib = node_library();
  const double loading_ms = ms_since(loading);
  int healthy = 0;
  if (lib.api == nullptr) {
    std::snprintf(line.data(), line.size(), "shareq: hardware: cannot check: %s",
                  lib.error.c_str());
  } else {
    const HardwareSpec& spec = family->hardware;
    const shareq_node_hardware_t expected{family->name.c_str(), spec.gpus.value_or(-1),
                                          spec.numa.value_or(-1), spec.cores.value_or(-1)};
    healthy = lib.api->check_hardware(&expected, topology_xml_argument(ac, av, node).c_str(),
                                      line.data(), line.size());
  }
  if (healthy == 1) {
    slurm_info("%s (job %u, %.1f ms, %.1f of them loading the node library)", line.data(), job_id,
               ms_since(started), loading_ms);
    return 0;
  }
  slurm_error("%s (node %s, job %u partition %s, %.1f ms): draining the node", line.data(),
              node.c_str(), job_id, partition.c_str(), ms_since(started));
  drain_node(node, line.data());
  return -1;
}

}  // namespace

void preload_node_library(spank_t sp) {
  const uint32_t job_id = job_id_of(sp);
  if (job_id != 0 && step_needs(sp, job_id).any()) (void)node_api("init");
}

int job_prolog(spank_t sp, int ac, char** av) {
  JobScriptFacts facts;
  read_job_script_facts(sp, facts);
  if (check_hardware(ac, av, facts.node, facts.job.job_id) != 0) return -1;
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
  const uint32_t job_id = job_id_of(sp);
  if (job_id == 0) return 0;
  const StepNeeds needs = step_needs(sp, job_id);
  if (!needs.any()) return 0;  // nothing was prepared for it: shareq_node.so is not even loaded
  const NodeLibrary& lib = node_library();
  if (lib.api == nullptr) {
    // Logged by the step's init. A job that needs neither an image nor a warm directory runs.
    if (!needs.image.empty()) {
      g_task_error = "image " + needs.image + ": " + lib.error;
    } else if (!needs.warm_name.empty()) {
      g_task_error = "warm directory " + needs.warm_name + ": " + lib.error;
    }
    return 0;
  }
  shareq_node_prepared_t prepared{};
  const int found = lib.api->read_prepared(
      shareq_conf_path().c_str(), env("SLURMD_NODENAME").c_str(), job_id, &prepared, log_line);
  if (found < 0) {
    if (!needs.image.empty()) g_task_error = "shareq.conf cannot be read on this node";
    return 0;
  }
  if (found == 0) {
    if (!needs.image.empty()) {
      g_task_error = "image " + needs.image +
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
