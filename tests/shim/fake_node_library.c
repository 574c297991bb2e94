/*
 * A stand-in for shareq_node.so (plugins/spank/node_api.h) beside spank_dispatch_present_test:
 * canned outcomes per job id, and a log line for each prolog and epilog so the test sees them.
 *   job 42: image /cache/sha256/abc, warm directory /warm/warm-7
 *   job 43: the error "image bad: digest mismatch"
 *   other jobs: nothing prepared
 *   check_hardware: healthy unless the topology's path contains "bad"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_api.h"

static int job_script(const char* phase, const char* conf, const shareq_node_job_t* job,
                      shareq_node_log_fn log) {
  char line[512];
  snprintf(line, sizeof line, "fake %s: job %u image %s node %s conf %s", phase,
           (unsigned)job->job_id, job->image, job->node, conf);
  log(SHAREQ_NODE_LOG_INFO, line);
  return 0;
}

static int fake_prolog(const char* conf, const shareq_node_job_t* job, int64_t now,
                       shareq_node_log_fn log) {
  (void)now;
  return job_script("prolog", conf, job, log);
}

static int fake_epilog(const char* conf, const shareq_node_job_t* job, int64_t now,
                       shareq_node_log_fn log) {
  (void)now;
  return job_script("epilog", conf, job, log);
}

static int fake_read_prepared(const char* conf, const char* node, uint32_t job_id,
                              shareq_node_prepared_t* out, shareq_node_log_fn log) {
  (void)conf;
  (void)node;
  (void)log;
  if (job_id == 46) { /* a job without an image that got a warm directory */
    out->image_path = strdup("");
    out->digest = strdup("");
    out->warm_dir = strdup("/warm/warm-46");
    out->error = strdup("");
    return 1;
  }
  if (job_id != 42 && job_id != 43) return 0;
  out->image_path = strdup(job_id == 42 ? "/cache/sha256/abc" : "");
  out->digest = strdup(job_id == 42 ? "abc" : "");
  out->warm_dir = strdup(job_id == 42 ? "/warm/warm-7" : "");
  out->error = strdup(job_id == 42 ? "" : "image bad: digest mismatch");
  return 1;
}

static void fake_free_prepared(shareq_node_prepared_t* p) {
  free(p->image_path);
  free(p->digest);
  free(p->warm_dir);
  free(p->error);
}

/* Healthy unless the topology's path contains "bad"; the line says what it was given. */
static int fake_check_hardware(const shareq_node_hardware_t* expected, const char* topology_xml,
                               char* line, uint64_t line_size) {
  const int bad = strstr(topology_xml, "bad") != NULL;
  snprintf(
      line, (size_t)line_size, "%s (fake: %s gpus %lld numa %lld cores %lld topology %s)",
      bad ? "shareq: hardware: 7 GPUs found, family p5 expects 8" : "shareq: hardware: ok: fake",
      expected->family, (long long)expected->gpus, (long long)expected->numa,
      (long long)expected->cores, topology_xml);
  return bad ? 0 : 1;
}

static const shareq_node_api_t api = {
    SHAREQ_NODE_ABI_VERSION, fake_prolog,        fake_epilog,
    fake_read_prepared,      fake_free_prepared, fake_check_hardware};

const shareq_node_api_t* shareq_node_api(uint32_t abi_version) {
  return abi_version == SHAREQ_NODE_ABI_VERSION ? &api : NULL;
}
