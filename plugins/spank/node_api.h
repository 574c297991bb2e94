/*
 * The C interface between spank_shareq.so and its node library, shareq_node.so.
 *
 * Why two libraries: the node side (image cache, HTTP fetches with libcurl, SHA-256 with OpenSSL)
 * pulls in some 36 shared libraries. spank_shareq.so is also loaded by every sbatch, salloc and
 * srun, which need none of that; so spank_shareq.so links none of it and dlopen()s
 * shareq_node.so, installed beside it, only where the node side runs (slurmstepd's remote
 * context, the job prolog and epilog).
 *
 * The boundary is plain C: one table of function pointers, looked up by the single exported
 * symbol SHAREQ_NODE_API_SYMBOL. No C++ type and no exception crosses it; every string is a
 * NUL-terminated char array; strings the library returns are malloc'd and freed through
 * free_prepared. A mismatched ABI version is refused at load time.
 */
#ifndef SHAREQ_NODE_API_H
#define SHAREQ_NODE_API_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raise when the table or a struct below changes shape. */
#define SHAREQ_NODE_ABI_VERSION 3u
/* The file name, looked for in the directory that holds spank_shareq.so. */
#define SHAREQ_NODE_LIBRARY "shareq_node.so"
/* The one symbol shareq_node.so exports: a shareq_node_api_fn. */
#define SHAREQ_NODE_API_SYMBOL "shareq_node_api"

enum shareq_node_log_level { SHAREQ_NODE_LOG_INFO = 0, SHAREQ_NODE_LOG_ERROR = 1 };

/* One log line, without the "shareq: " prefix (the caller adds it and picks Slurm's logger). */
typedef void (*shareq_node_log_fn)(enum shareq_node_log_level level, const char* line);

/* What the prolog and epilog know of the job (see node.hpp, JobFacts). NULL strings = "". */
typedef struct shareq_node_job {
  uint32_t job_id;
  uint32_t uid;
  uint32_t gid;
  const char* node;         /* SLURMD_NODENAME */
  const char* image;        /* SHAREQ_IMAGE as accepted at submission */
  const char* image_digest; /* SHAREQ_IMAGE_DIGEST resolved at submission */
  const char* warm_name;    /* SHAREQ_WARM_NAME, "warm-ORIGIN" */
  int64_t keep_alive_s;     /* SHAREQ_KEEP_ALIVE */
  const char* warm_ended;   /* SHAREQ_WARM_ENDED: "warm-A,warm-B", pools slurmctld ended early */
} shareq_node_job_t;

/* What a family's Hardware= expects of its nodes (hardware_spec.hpp); -1: not checked. */
typedef struct shareq_node_hardware {
  const char* family;
  int64_t gpus;
  int64_t numa;
  int64_t cores;
} shareq_node_hardware_t;

/* What the prolog prepared for a job (see node.hpp, Prepared); malloc'd, never NULL once filled. */
typedef struct shareq_node_prepared {
  char* image_path;
  char* digest;
  char* warm_dir;
  char* error; /* "" when fine; else the sentence that fails the job's tasks */
} shareq_node_prepared_t;

typedef struct shareq_node_api {
  uint32_t abi_version; /* SHAREQ_NODE_ABI_VERSION */
  /*
   * The job prolog and epilog on this node. `shareq_conf` is the path of shareq.conf; an
   * unreadable one is logged. Both always return 0: a failed prolog would drain the node, so an
   * image error is recorded for the job's tasks instead.
   */
  int (*job_prolog)(const char* shareq_conf, const shareq_node_job_t* job, int64_t now,
                    shareq_node_log_fn log);
  int (*job_epilog)(const char* shareq_conf, const shareq_node_job_t* job, int64_t now,
                    shareq_node_log_fn log);
  /*
   * What the prolog left for job_id on `node`: 1 and *out filled (free it with free_prepared),
   * 0 when it left nothing, -1 when shareq.conf cannot be read (logged).
   */
  int (*read_prepared)(const char* shareq_conf, const char* node, uint32_t job_id,
                       shareq_node_prepared_t* out, shareq_node_log_fn log);
  void (*free_prepared)(shareq_node_prepared_t* prepared);
  /*
   * This node's GPUs, NUMA nodes and cores (hwloc, I/O discovery on; from the hwloc XML file
   * `topology_xml` when it is neither NULL nor "", else from the machine) against `expected`.
   * 1: they match; 0: they do not, or the topology cannot be read (the check fails closed).
   * Either way `line` (of `line_size` bytes, NUL-terminated, cut if need be) gets the one line
   * that says so: "shareq: hardware: ok: ..." or "shareq: hardware: 7 GPUs found, family p5
   * expects 8" / "shareq: hardware: cannot check: topology: ...".
   */
  int (*check_hardware)(const shareq_node_hardware_t* expected, const char* topology_xml,
                        char* line, uint64_t line_size);
} shareq_node_api_t;

/* The table for `abi_version`, or NULL when this library does not speak it. */
typedef const shareq_node_api_t* (*shareq_node_api_fn)(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_NODE_API_H */
