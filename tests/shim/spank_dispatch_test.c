/*
 * spank_shareq's dispatch (plugins/spank/spank_shareq.cpp, remote.cpp, node_library.cpp) against
 * a mocked SPANK API, in one of two builds:
 *   spank_dispatch_missing_test: no shareq_node.so beside the executable (a broken install):
 *     every callback still succeeds, the node logs why, and only the tasks of jobs that need the
 *     node side (an image or a warm directory) fail, with that message;
 *   spank_dispatch_present_test (NODE_LIBRARY_PRESENT): a fake shareq_node.so beside it
 *     (fake_node_library.c): the client contexts never load it, nor do the steps of jobs with
 *     neither an image nor a warm directory; the others load it, and their tasks get what it
 *     prepared.
 * The node library is loaded once per process, so the tests run in the order listed. Run them by
 * their absolute path, as ctest does: like the plugin, they look for shareq_node.so beside the
 * file they were loaded from and refuse a relative one.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

/* ---- the mocked SPANK API ---- */

static spank_context_t g_context = S_CTX_ALLOCATOR;
static uint32_t g_job_id = 42;
static const char* g_job_env[4]; /* "NAME=VALUE", what spank_getenv sees; NULL-terminated */
static char g_log[16384];        /* every slurm_info / slurm_error line */

spank_context_t spank_context(void) { return g_context; }

int spank_remote(spank_t sp) {
  (void)sp;
  return g_context == S_CTX_REMOTE;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...) {
  (void)sp;
  va_list ap;
  va_start(ap, item);
  spank_err_t rc = ESPANK_SUCCESS;
  if (item == S_JOB_ID) {
    *va_arg(ap, uint32_t*) = g_job_id;
  } else if (item == S_JOB_UID) {
    *va_arg(ap, uid_t*) = 1000;
  } else if (item == S_JOB_GID) {
    *va_arg(ap, gid_t*) = 1000;
  } else {
    rc = ESPANK_BAD_ARG;
  }
  va_end(ap);
  return rc;
}

spank_err_t spank_getenv(spank_t sp, const char* var, char* buf, int len) {
  (void)sp;
  size_t n = strlen(var);
  for (const char** e = g_job_env; *e != NULL; e++) {
    if (strncmp(*e, var, n) == 0 && (*e)[n] == '=') {
      snprintf(buf, (size_t)len, "%s", *e + n + 1);
      return ESPANK_SUCCESS;
    }
  }
  return ESPANK_ENV_NOEXIST;
}

spank_err_t spank_setenv(spank_t sp, const char* var, const char* val, int overwrite) {
  (void)sp;
  (void)overwrite;
  check_expected(var);
  check_expected(val);
  return ESPANK_SUCCESS;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option* opt) {
  (void)sp;
  (void)opt;
  return ESPANK_SUCCESS;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char* name, const char* value,
                                     int overwrite) {
  (void)sp;
  (void)name;
  (void)value;
  (void)overwrite;
  return ESPANK_SUCCESS;
}

const char* spank_strerror(spank_err_t err) {
  (void)err;
  return "mocked error";
}

static void append_log(const char* level, const char* format, va_list ap) {
  size_t used = strlen(g_log);
  snprintf(g_log + used, sizeof g_log - used, "%s: ", level);
  used = strlen(g_log);
  vsnprintf(g_log + used, sizeof g_log - used, format, ap);
  used = strlen(g_log);
  snprintf(g_log + used, sizeof g_log - used, "\n");
}

void slurm_info(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  append_log("info", format, ap);
  va_end(ap);
}

void slurm_error(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  append_log("error", format, ap);
  va_end(ap);
}

/* ---- the mocked libslurm calls of the hardware check's drain ---- */

static char g_drained[64];       /* the node slurm_update_node was asked to drain, or "" */
static char g_drain_reason[512]; /* and its reason */
static uint32_t g_drain_state;

void slurm_init_update_node_msg(update_node_msg_t* msg) { memset(msg, 0, sizeof *msg); }

int slurm_update_node(update_node_msg_t* msg) {
  snprintf(g_drained, sizeof g_drained, "%s", msg->node_names);
  snprintf(g_drain_reason, sizeof g_drain_reason, "%s", msg->reason);
  g_drain_state = msg->node_state;
  return SLURM_SUCCESS;
}

char* slurm_strerror(int errnum) {
  (void)errnum;
  return (char*)"mocked slurm error";
}

/* ---- helpers ---- */

static spank_t sp(void) { return (spank_t)(uintptr_t)0x5eed; }

static void job(spank_context_t context, uint32_t id, const char* env0, const char* env1) {
  g_context = context;
  g_job_id = id;
  g_job_env[0] = env0;
  g_job_env[1] = env0 != NULL ? env1 : NULL;
  g_job_env[2] = NULL;
  g_log[0] = '\0';
}

static bool logged(const char* part) { return strstr(g_log, part) != NULL; }

/* Whether this process has mapped a file whose path contains `name`. */
static bool mapped(const char* name) {
  FILE* maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[4096];
  bool found = false;
  while (!found && fgets(line, sizeof line, maps) != NULL) found = strstr(line, name) != NULL;
  fclose(maps);
  return found;
}

/* A private directory with shareq.conf (ImageCacheDir=DIR/%n/images), so that the prolog's
 * outcome for job ID on node n1 is DIR/n1/jobs/ID. */
static char g_dir[64];

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void** state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/shareq-dispatch-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  char path[256];
  char text[256];
  snprintf(path, sizeof path, "%s/shareq.conf", g_dir);
  /* p5 expects 8 GPUs of its nodes (the hardware check); p4 expects nothing. */
  snprintf(text, sizeof text,
           "Family=p5 Partitions=p5 Capacity=node=1 Hardware=gpus=8\n"
           "Family=p4 Partitions=p4 Capacity=node=1\n"
           "ImageCacheDir=%s/%%n/images\n",
           g_dir);
  write_file(path, text);
  /* slurm_conf is not linked in: the plugin falls back to SLURM_CONF for shareq.conf's place. */
  snprintf(path, sizeof path, "%s/slurm.conf", g_dir);
  setenv("SLURM_CONF", path, 1);
  setenv("SLURMD_NODENAME", "n1", 1);
  return 0;
}

static int teardown(void** state) {
  (void)state;
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
  return system(command) == 0 ? 0 : -1;
}

#ifndef NODE_LIBRARY_PRESENT

static void remote_init_of_a_plain_job_neither_loads_nor_logs(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 41, "SLURM_SPANK_SHAREQ_SHARE=prodexp1", NULL);
  assert_int_equal(slurm_spank_init(sp(), 0, NULL), 0);
  assert_string_equal(g_log, "");
}

static void remote_init_logs_the_missing_library_and_succeeds(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 42, "SLURM_SPANK_SHAREQ_IMAGE=llama", NULL);
  assert_int_equal(slurm_spank_init(sp(), 0, NULL), 0);
  assert_true(logged("error: shareq: init: cannot load the node library /"));
  assert_true(logged("/dispatch_missing/shareq_node.so ("));
  assert_true(logged("jobs with an image or a warm directory fail on this node"));
  assert_false(mapped("shareq_node.so"));
}

static void an_image_jobs_task_fails_with_the_reason(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 42, "SLURM_SPANK_SHAREQ_IMAGE=llama", NULL);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), -1);
  assert_true(logged("error: shareq: task: image llama: cannot load the node library /"));
}

static void a_warm_directory_jobs_task_fails_with_the_reason(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 42, "SLURM_SPANK_SHAREQ_WARM_NAME=warm-7", NULL);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), -1);
  assert_true(logged("error: shareq: task: warm directory warm-7: cannot load the node library"));
}

static void a_job_without_image_or_warm_directory_runs(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 42, "SLURM_SPANK_SHAREQ_SHARE=prodexp1", NULL);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), 0);
  assert_string_equal(g_log, "");
}

static void prolog_and_epilog_succeed_so_the_node_is_not_drained(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 42, NULL, NULL);
  setenv("SPANK_SHAREQ_IMAGE", "llama", 1);
  assert_int_equal(slurm_spank_job_prolog(sp(), 0, NULL), 0);
  assert_true(logged("error: shareq: prolog: cannot load the node library"));
  assert_int_equal(slurm_spank_job_epilog(sp(), 0, NULL), 0);
  assert_true(logged("error: shareq: epilog: cannot load the node library"));
  unsetenv("SPANK_SHAREQ_IMAGE");
}

/* The check fails closed: a node whose family expects hardware and that cannot check it is
 * drained, and its prolog fails. */
static void a_hardware_check_without_the_node_library_drains_the_node(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 47, NULL, NULL);
  g_drained[0] = '\0';
  setenv("SLURM_JOB_PARTITION", "p5", 1);
  assert_int_equal(slurm_spank_job_prolog(sp(), 0, NULL), -1);
  unsetenv("SLURM_JOB_PARTITION");
  assert_string_equal(g_drained, "n1");
  assert_int_equal(g_drain_state, NODE_STATE_DRAIN);
  assert_non_null(
      strstr(g_drain_reason, "shareq: hardware: cannot check: cannot load the node library"));
  assert_true(logged("error: shareq: hardware: cannot check: "));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_hardware_check_without_the_node_library_drains_the_node),
      cmocka_unit_test(remote_init_of_a_plain_job_neither_loads_nor_logs),
      cmocka_unit_test(remote_init_logs_the_missing_library_and_succeeds),
      cmocka_unit_test(an_image_jobs_task_fails_with_the_reason),
      cmocka_unit_test(a_warm_directory_jobs_task_fails_with_the_reason),
      cmocka_unit_test(a_job_without_image_or_warm_directory_runs),
      cmocka_unit_test(prolog_and_epilog_succeed_so_the_node_is_not_drained),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

#else /* NODE_LIBRARY_PRESENT */

/* What the job's prolog would leave on node n1 when it prepared something for the job. */
static void prolog_outcome(uint32_t job_id) {
  char path[256];
  snprintf(path, sizeof path, "%s/n1", g_dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/n1/jobs", g_dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/n1/jobs/%u", g_dir, job_id);
  write_file(path, "warm_dir=/warm/warm-46\n");
}

static void client_contexts_never_load_the_node_library(void** state) {
  (void)state;
  const spank_context_t clients[] = {S_CTX_ALLOCATOR, S_CTX_LOCAL};
  for (size_t i = 0; i < sizeof clients / sizeof clients[0]; i++) {
    job(clients[i], 0, NULL, NULL);
    assert_int_equal(slurm_spank_init(sp(), 0, NULL), 0);
    assert_int_equal(slurm_spank_init_post_opt(sp(), 0, NULL), 0);
    assert_int_equal(slurm_spank_exit(sp(), 0, NULL), 0);
  }
  assert_false(mapped("shareq_node.so"));
  assert_string_equal(g_log, "");
}

/* Steps of jobs with neither an image nor a warm directory (most srun steps) skip the node
 * library and the 2-4 ms loading it costs each step. */
static void a_step_without_image_or_warm_directory_never_loads_it(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 41, "SLURM_SPANK_SHAREQ_SHARE=prodexp1", NULL);
  assert_int_equal(slurm_spank_init(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), 0);
  assert_false(mapped("shareq_node.so"));
  assert_string_equal(g_log, "");
}

/* A job without --image whose prolog made it a warm directory: slurmctld names the directory in
 * the prolog's environment only, so the prolog's outcome on the node is what tells. */
static void a_step_whose_prolog_prepared_a_warm_directory_loads_it(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 46, "SLURM_SPANK_SHAREQ_SHARE=prodexp1", NULL);
  prolog_outcome(46);
  assert_int_equal(slurm_spank_init(sp(), 0, NULL), 0);
  assert_true(mapped("/dispatch_present/shareq_node.so"));
  expect_string(spank_setenv, var, "SHAREQ_WARM_DIR");
  expect_string(spank_setenv, val, "/warm/warm-46");
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), 0);
  assert_string_equal(g_log, "");
}

static void the_task_gets_what_the_prolog_prepared(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 42, "SLURM_SPANK_SHAREQ_IMAGE=llama", NULL);
  expect_string(spank_setenv, var, "SHAREQ_IMAGE_PATH");
  expect_string(spank_setenv, val, "/cache/sha256/abc");
  expect_string(spank_setenv, var, "SHAREQ_WARM_DIR");
  expect_string(spank_setenv, val, "/warm/warm-7");
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), 0);
}

static void the_task_fails_with_the_prologs_error(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 43, "SLURM_SPANK_SHAREQ_IMAGE=bad", NULL);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), -1);
  assert_true(logged("error: shareq: task: image bad: digest mismatch"));
}

static void an_image_the_prolog_never_prepared_fails_the_task(void** state) {
  (void)state;
  job(S_CTX_REMOTE, 44, "SLURM_SPANK_SHAREQ_IMAGE=llama", NULL);
  assert_int_equal(slurm_spank_task_init_privileged(sp(), 0, NULL), 0);
  assert_int_equal(slurm_spank_task_init(sp(), 0, NULL), -1);
  assert_true(logged("image llama: the node prolog did not prepare it"));
}

static void prolog_and_epilog_pass_the_job_and_shareq_conf_beside_slurm_conf(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 42, NULL, NULL);
  setenv("SPANK_SHAREQ_IMAGE", "llama", 1);
  assert_int_equal(slurm_spank_job_prolog(sp(), 0, NULL), 0);
  char line[256];
  snprintf(line, sizeof line,
           "info: shareq: fake prolog: job 42 image llama node n1 conf %s/shareq.conf", g_dir);
  assert_true(logged(line));
  assert_int_equal(slurm_spank_job_epilog(sp(), 0, NULL), 0);
  assert_true(logged("info: shareq: fake epilog: job 42 image llama node n1"));
  unsetenv("SPANK_SHAREQ_IMAGE");
}

static void a_prolog_without_image_or_warm_directory_does_nothing(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 45, NULL, NULL);
  assert_int_equal(slurm_spank_job_prolog(sp(), 0, NULL), 0);
  assert_string_equal(g_log, "");
}

/* The fake library's check_hardware: healthy unless the topology's path contains "bad". */
static void a_node_whose_hardware_differs_is_drained_and_its_prolog_fails(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 48, NULL, NULL);
  g_drained[0] = '\0';
  setenv("SLURM_JOB_PARTITION", "p5", 1);
  char* args[] = {(char*)"hwloc_xml=/topologies/%n-bad.xml"};
  assert_int_equal(slurm_spank_job_prolog(sp(), 1, args), -1);
  unsetenv("SLURM_JOB_PARTITION");
  assert_string_equal(g_drained, "n1");
  assert_int_equal(g_drain_state, NODE_STATE_DRAIN);
  assert_string_equal(g_drain_reason,
                      "shareq: hardware: 7 GPUs found, family p5 expects 8 (fake: p5 gpus 8 "
                      "numa -1 cores -1 topology /topologies/n1-bad.xml)");
  assert_true(logged("error: shareq: hardware: 7 GPUs found, family p5 expects 8"));
  assert_true(logged("(node n1, job 48 partition p5, "));
}

static void a_node_with_its_familys_hardware_runs_the_job(void** state) {
  (void)state;
  job(S_CTX_JOB_SCRIPT, 49, NULL, NULL);
  g_drained[0] = '\0';
  setenv("SLURM_JOB_PARTITION", "p5", 1);
  char* args[] = {(char*)"hwloc_xml=/topologies/%n.xml"};
  assert_int_equal(slurm_spank_job_prolog(sp(), 1, args), 0);
  assert_string_equal(g_drained, "");
  /* The line names the job and the check's time (start_latency.py --hardware-check reads it). */
  assert_true(
      logged("info: shareq: hardware: ok: fake (fake: p5 gpus 8 numa -1 cores -1 "
             "topology /topologies/n1.xml) (job 49, "));
  assert_true(logged(" of them loading the node library)\n"));
  /* A family without Hardware= is not checked at all. */
  job(S_CTX_JOB_SCRIPT, 49, NULL, NULL);
  setenv("SLURM_JOB_PARTITION", "p4", 1);
  char* bad[] = {(char*)"hwloc_xml=/topologies/%n-bad.xml"};
  assert_int_equal(slurm_spank_job_prolog(sp(), 1, bad), 0);
  unsetenv("SLURM_JOB_PARTITION");
  assert_string_equal(g_drained, "");
  assert_string_equal(g_log, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(client_contexts_never_load_the_node_library),
      cmocka_unit_test(a_step_without_image_or_warm_directory_never_loads_it),
      cmocka_unit_test(a_step_whose_prolog_prepared_a_warm_directory_loads_it),
      cmocka_unit_test(the_task_gets_what_the_prolog_prepared),
      cmocka_unit_test(the_task_fails_with_the_prologs_error),
      cmocka_unit_test(an_image_the_prolog_never_prepared_fails_the_task),
      cmocka_unit_test(prolog_and_epilog_pass_the_job_and_shareq_conf_beside_slurm_conf),
      cmocka_unit_test(a_prolog_without_image_or_warm_directory_does_nothing),
      /* These load the node library for the hardware check: after those that must not. */
      cmocka_unit_test(a_node_whose_hardware_differs_is_drained_and_its_prolog_fails),
      cmocka_unit_test(a_node_with_its_familys_hardware_runs_the_job),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

#endif
