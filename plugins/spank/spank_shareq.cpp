// spank_shareq.so: the dispatch. Each callback only switches on spank_context() and calls the
// side that owns that context; every callback is safe to call twice and never throws.
//   local (srun), allocator (sbatch, salloc): options, client-side checks, forwarding.
//   remote (slurmstepd): options registered so Slurm can replay them; each task gets
//     SHAREQ_IMAGE_PATH and SHAREQ_WARM_DIR from what the job prolog prepared, or fails with
//     its error (remote.hpp).
//   job script (slurm_spank_job_prolog / _epilog, as root on every node of the job): the
//     node's hardware against its family's Hardware= (drains the node and fails the prolog when
//     it differs), the node-local image cache and warm directories (node.hpp).
// The node side lives in shareq_node.so beside this plugin (node_api.h), loaded only in the
// remote and job script contexts: the client commands never load libcurl and its dependencies.
//   slurmd: nothing.
#include "boundary.hpp"
#include "client.hpp"
#include "remote.hpp"
#include "spank_api.hpp"

// SPANK_PLUGIN(shareq, 1), spelled out: its const definitions would have internal linkage in C++.
SHAREQ_EXPORT const char plugin_name[] = "shareq";  // == SHAREQ_SPANK_PLUGIN_NAME
SHAREQ_EXPORT const char plugin_type[] = "spank";
SHAREQ_EXPORT const unsigned int plugin_version = SLURM_VERSION_NUMBER;
SHAREQ_EXPORT const unsigned int spank_plugin_version = 1;

// spank.h declares these; redeclared to give them default visibility (-fvisibility=hidden).
// NOLINTBEGIN(readability-redundant-declaration)
SHAREQ_EXPORT int slurm_spank_init(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_exit(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_job_prolog(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_job_epilog(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_task_init_privileged(spank_t sp, int ac, char** av);
SHAREQ_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char** av);
// NOLINTEND(readability-redundant-declaration)

namespace {

using shareq::plugin::guarded;

void report(const char* where, const char* what) { slurm_error("shareq: %s: %s", where, what); }

}  // namespace

extern "C" int slurm_spank_init(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded(
      -1,
      [&] {
        switch (spank_context()) {
          case S_CTX_LOCAL:
          case S_CTX_ALLOCATOR:
            return shareq::spank_plugin::register_options(sp) == ESPANK_SUCCESS ? 0 : -1;
          case S_CTX_REMOTE:
            shareq::spank_plugin::preload_node_library(sp);
            return shareq::spank_plugin::register_options(sp) == ESPANK_SUCCESS ? 0 : -1;
          default:
            return 0;
        }
      },
      [](const char* what) { report("init", what); });
}

extern "C" int slurm_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded(
      -1,
      [&] {
        switch (spank_context()) {
          case S_CTX_LOCAL:
          case S_CTX_ALLOCATOR:
            return shareq::spank_plugin::forward_flags(sp);
          default:
            return 0;
        }
      },
      [](const char* what) { report("init_post_opt", what); });
}

extern "C" int slurm_spank_exit(spank_t /*sp*/, int /*ac*/, char** /*av*/) {
  return guarded(
      0,
      [] {
        switch (spank_context()) {
          case S_CTX_LOCAL:
          case S_CTX_ALLOCATOR:
            shareq::spank_plugin::clear_flags();
            return 0;
          default:
            return 0;
        }
      },
      [](const char* what) { report("exit", what); });
}

// Job script context only (slurmd runs it as root on each node of the job). -1 only when the
// node's hardware is not what its family's Hardware= says (the node is drained, the job
// requeued); an image error fails the job's tasks instead (a failed prolog drains the node).
extern "C" int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  return guarded(
      0, [&] { return shareq::spank_plugin::job_prolog(sp, ac, av); },
      [](const char* what) { report("job_prolog", what); });
}

extern "C" int slurm_spank_job_epilog(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded(
      0, [&] { return shareq::spank_plugin::job_epilog(sp); },
      [](const char* what) { report("job_epilog", what); });
}

extern "C" int slurm_spank_task_init_privileged(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded(
      0, [&] { return spank_remote(sp) != 0 ? shareq::spank_plugin::task_init_privileged(sp) : 0; },
      [](const char* what) { report("task_init_privileged", what); });
}

extern "C" int slurm_spank_task_init(spank_t sp, int /*ac*/, char** /*av*/) {
  return guarded(
      -1, [&] { return spank_remote(sp) != 0 ? shareq::spank_plugin::task_init(sp) : 0; },
      [](const char* what) { report("task_init", what); });
}
