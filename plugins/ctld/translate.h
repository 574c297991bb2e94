/*
 * Slurm job -> policy core types, with a C interface so that the CMocka tests can drive it with
 * plain data (no job_record_t). The Slurm side (slurm_jobs.cpp) fills a shareq_job_view_t from a
 * job record; everything below decides nothing, it only translates:
 *   share    = the job's account, any case, via Policy::share_id (none: not governed);
 *   family   = each partition's family (running: the partition it runs in; pending: its
 *              partitions in order), partitions in no family are skipped;
 *   amount   = nodes in a node family, GPUs (gres/gpu TRES) in a GPU family;
 *   priority = SHAREQ_SHARE_PRIORITY from the spank job environment (job_submit/shareq writes
 *              the canonical value there), else the policy's DefaultPriority.
 */
#ifndef SHAREQ_TRANSLATE_H
#define SHAREQ_TRANSLATE_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include <stdbool.h>
#include <stdint.h>

#include "submit_shim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What shareq reads of a job record. Strings may be NULL. */
typedef struct shareq_job_view {
  uint32_t job_id;
  const char* account;
  const char* const* partitions; /* running: the one it runs in; pending: in the job's order */
  uint32_t partition_count;
  uint64_t nodes; /* running: allocated; pending: requested (minimum) */
  uint64_t gpus;  /* gres/gpu: allocated (running) or requested (pending) */
  char* const* spank_env;
  uint32_t spank_env_size;
  int64_t start_time;
  int64_t submit_time;
} shareq_job_view_t;

/* A compiled policy (opaque), for the tests. */
typedef struct shareq_policy shareq_policy_t;
shareq_policy_t* shareq_policy_compile(const shareq_conf_t* conf);
void shareq_policy_free(shareq_policy_t* policy);
/* Dense ids by name; -1 when unknown. */
int64_t shareq_policy_share(const shareq_policy_t* policy, const char* name);
int64_t shareq_policy_family(const shareq_policy_t* policy, const char* name);

typedef struct shareq_running {
  uint32_t job_id;
  uint32_t share;
  uint32_t family;
  int64_t amount;
  int priority;
  int64_t start_time;
} shareq_running_t;

#define SHAREQ_MAX_REQUESTS 8
typedef struct shareq_pending {
  uint32_t job_id;
  uint32_t share;
  int priority;
  int64_t submit_time;
  uint32_t request_count;
  struct {
    uint32_t family;
    int64_t amount;
  } requests[SHAREQ_MAX_REQUESTS];
} shareq_pending_t;

/* The job as a running job of the policy; false when shareq does not govern it (share unknown,
 * partition in no family). */
bool shareq_translate_running(const shareq_policy_t* policy, const shareq_job_view_t* job,
                              shareq_running_t* out);
/* The job as a pending job; false when no partition of the job is in a family or the share is
 * unknown. At most SHAREQ_MAX_REQUESTS requests are reported here (the C++ API has no limit). */
bool shareq_translate_pending(const shareq_policy_t* policy, const shareq_job_view_t* job,
                              shareq_pending_t* out);
/* The job's --share-priority from its spank environment, else the default. */
int shareq_translate_priority(const shareq_policy_t* policy, char* const* env, uint32_t size);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_TRANSLATE_H */
