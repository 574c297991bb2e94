/*
 * The controller view's translation helpers (plugins/ctld) against plain data standing in for
 * Slurm's job records: a job record's fields -> the core's RunningJob / PendingJob, shareq's
 * priority -> sprio's columns, and the decayed-usage state file (round trip, corrupt files).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_xmalloc.h"
#include "sprio_factors.h"
#include "submit_shim.h"
#include "translate.h"
#include "usage_file.h"

static const char* const kConf =
    "Family=p4 Partitions=p4,p4b Capacity=node=4\n"
    "Family=p5 Partitions=p5 Capacity=gres/gpu=32\n"
    "Share=ProdExp1 Family=p4 Quota=node=2\n"
    "Share=ProdExp2 Family=p4 Quota=node=2\n"
    "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"
    "Share=Research Family=p5 Quota=gres/gpu=16\n"
    "DefaultPriority=40\n";

typedef struct {
  shareq_conf_t* conf;
  shareq_policy_t* policy;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  char* errors = NULL;
  f->conf = shareq_conf_parse(kConf, "test.conf", &errors);
  assert_non_null(f->conf);
  f->policy = shareq_policy_compile(f->conf);
  assert_non_null(f->policy);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  shareq_policy_free(f->policy);
  shareq_conf_free(f->conf);
  free(f);
  return 0;
}

static shareq_job_view_t view(const char* account, const char* const* parts, uint32_t nparts,
                              uint64_t nodes, uint64_t gpus, char** env, uint32_t env_size) {
  shareq_job_view_t v;
  memset(&v, 0, sizeof(v));
  v.job_id = 42;
  v.account = account;
  v.partitions = parts;
  v.partition_count = nparts;
  v.nodes = nodes;
  v.gpus = gpus;
  v.spank_env = env;
  v.spank_env_size = env_size;
  v.start_time = 1000;
  v.submit_time = 900;
  return v;
}

static void running_node_job_counts_nodes_under_its_account_share(void** state) {
  fixture_t* f = *state;
  const char* parts[] = {"p4"};
  const char* env_entries[] = {"SHAREQ_SHARE_PRIORITY=80", NULL};
  char** env = fake_env(env_entries);
  shareq_job_view_t v = view("PRODEXP1", parts, 1, 3, 16, env, 1);
  shareq_running_t r;
  assert_true(shareq_translate_running(f->policy, &v, &r));
  assert_int_equal(r.job_id, 42);
  assert_int_equal(r.share, shareq_policy_share(f->policy, "prodexp1"));
  assert_int_equal(r.family, shareq_policy_family(f->policy, "p4"));
  assert_int_equal(r.amount, 3); /* nodes, not GPUs, in a node family */
  assert_int_equal(r.priority, 80);
  assert_int_equal(r.start_time, 1000);
  fake_env_free(env, 1);
}

static void running_gpu_job_counts_gpus_and_defaults_priority(void** state) {
  fixture_t* f = *state;
  const char* parts[] = {"p5"};
  shareq_job_view_t v = view("research", parts, 1, 2, 16, NULL, 0);
  shareq_running_t r;
  assert_true(shareq_translate_running(f->policy, &v, &r));
  assert_int_equal(r.family, shareq_policy_family(f->policy, "p5"));
  assert_int_equal(r.amount, 16);
  assert_int_equal(r.priority, 40); /* DefaultPriority */
}

static void slurm_option_name_is_the_priority_fallback(void** state) {
  fixture_t* f = *state;
  const char* env_entries[] = {"_SLURM_SPANK_OPTION_shareq_share_priority=7", NULL};
  char** env = fake_env(env_entries);
  assert_int_equal(shareq_translate_priority(f->policy, env, 1), 7);
  fake_env_free(env, 1);
  const char* bad_entries[] = {"SHAREQ_SHARE_PRIORITY=150", NULL};
  env = fake_env(bad_entries);
  assert_int_equal(shareq_translate_priority(f->policy, env, 1), 40);
  fake_env_free(env, 1);
}

static void jobs_outside_families_or_shares_are_not_governed(void** state) {
  fixture_t* f = *state;
  const char* debug[] = {"debug"};
  const char* p4[] = {"p4"};
  shareq_running_t r;
  shareq_pending_t p;
  shareq_job_view_t v = view("prodexp1", debug, 1, 1, 0, NULL, 0);
  assert_false(shareq_translate_running(f->policy, &v, &r));
  assert_false(shareq_translate_pending(f->policy, &v, &p));
  v = view("nobody", p4, 1, 1, 0, NULL, 0);
  assert_false(shareq_translate_running(f->policy, &v, &r));
  assert_false(shareq_translate_pending(f->policy, &v, &p));
  v = view(NULL, p4, 1, 1, 0, NULL, 0);
  assert_false(shareq_translate_running(f->policy, &v, &r));
}

static void pending_job_asks_each_family_once_in_partition_order(void** state) {
  fixture_t* f = *state;
  const char* parts[] = {"p5", "debug", "p4", "p4b"};
  shareq_job_view_t v = view("ProdExp2", parts, 4, 2, 16, NULL, 0);
  shareq_pending_t p;
  assert_true(shareq_translate_pending(f->policy, &v, &p));
  assert_int_equal(p.share, shareq_policy_share(f->policy, "prodexp2"));
  assert_int_equal(p.submit_time, 900);
  assert_int_equal(p.request_count, 2);
  assert_int_equal(p.requests[0].family, shareq_policy_family(f->policy, "p5"));
  assert_int_equal(p.requests[0].amount, 16);
  assert_int_equal(p.requests[1].family, shareq_policy_family(f->policy, "p4"));
  assert_int_equal(p.requests[1].amount, 2);
}

static double sprio_total(const priority_factors_object_t* o) {
  return o->priority_age + o->priority_assoc + o->priority_fs + o->priority_js + o->priority_part +
         o->priority_qos + ((double)o->priority_site - NICE_OFFSET) -
         ((double)o->nice - NICE_OFFSET);
}

static void sprio_columns_add_up_to_the_priority(void** state) {
  (void)state;
  /* within quota: tier 2^30, share rank 3, --share-priority 80 */
  shareq_priority_parts_t within = {true, (1u << 30) + 3 * 128 + 80 + 1, 1u << 30, 3, 80};
  priority_factors_object_t o;
  memset(&o, 0, sizeof(o));
  shareq_fill_priority_factors(&within, &o);
  assert_int_equal(o.priority_site - NICE_OFFSET, (1u << 30) + 1);
  assert_true(o.priority_fs == 3 * 128);
  assert_true(o.priority_assoc == 80);
  assert_int_equal(o.nice, NICE_OFFSET);
  assert_true(o.priority_age == 0 && o.tres_cnt == 0 && o.priority_tres == NULL);
  assert_true(sprio_total(&o) == within.priority);

  shareq_priority_parts_t borrow = {true, 2 * 128 + 10 + 1, 0, 2, 10};
  shareq_fill_priority_factors(&borrow, &o);
  assert_int_equal(o.priority_site - NICE_OFFSET, 1);
  assert_true(sprio_total(&o) == borrow.priority);

  shareq_priority_parts_t outside = {false, 0, 0, 0, 0};
  shareq_fill_priority_factors(&outside, &o);
  assert_true(sprio_total(&o) == SHAREQ_OUTSIDE_PRIORITY);
  assert_true(o.priority_fs == 0 && o.priority_assoc == 0);
}

static char* temp_path(void) {
  static char path[64];
  strcpy(path, "/tmp/shareq_usage_testXXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  return path;
}

static void write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void usage_file_round_trips_exactly(void** state) {
  (void)state;
  const char* path = temp_path();
  shareq_usage_entry_t entries[] = {{"prodexp1", "p4", 7200.5}, {"research", "p5", 0.1 + 0.2}};
  char* err = NULL;
  assert_int_equal(shareq_usage_write(path, 1700000000, entries, 2, &err), 0);
  shareq_usage_file_t* file = shareq_usage_read(path, &err);
  assert_non_null(file);
  assert_int_equal(shareq_usage_last_ran(file), 1700000000);
  assert_int_equal(shareq_usage_count(file), 2);
  shareq_usage_entry_t e = shareq_usage_get(file, 1);
  assert_string_equal(e.share, "research");
  assert_string_equal(e.family, "p5");
  assert_true(e.value == 0.1 + 0.2);
  shareq_usage_free(file);
  char tmp[128];
  snprintf(tmp, sizeof tmp, "%s.new", path);
  assert_int_equal(access(tmp, F_OK), -1); /* renamed into place, nothing left behind */
  unlink(path);
}

static void corrupt_usage_files_are_refused_whole(void** state) {
  (void)state;
  static const char* const kBad[] = {
      "",                                             /* empty */
      "version=1\nlast_ran=5\nprodexp1 p4 12",        /* truncated: no final newline */
      "version=2\nlast_ran=5\n",                      /* unknown version */
      "version=1\nlast_ran=soon\n",                   /* bad time */
      "version=1\nlast_ran=5\nprodexp1 p4\n",         /* missing value */
      "version=1\nlast_ran=5\nprodexp1 p4 -3\n",      /* negative */
      "version=1\nlast_ran=5\nprodexp1 p4 nan\n",     /* not finite */
      "version=1\nlast_ran=5\nprod/exp p4 1\n",       /* bad name */
      "version=1\n",                                  /* no last_ran */
      "version=1\nlast_ran=5\nprodexp1 p4 1 extra\n", /* extra field */
  };
  const char* path = temp_path();
  for (size_t i = 0; i < sizeof kBad / sizeof kBad[0]; ++i) {
    write_text(path, kBad[i]);
    char* err = NULL;
    shareq_usage_file_t* file = shareq_usage_read(path, &err);
    if (file != NULL) fail_msg("case %zu was accepted", i);
    assert_non_null(err);
    assert_non_null(strstr(err, path)); /* the message names the file */
    slurm_xfree((void**)&err);
  }
  unlink(path);
  char* err = NULL;
  assert_null(shareq_usage_read(path, &err)); /* missing */
  assert_non_null(err);
  slurm_xfree((void**)&err);
}

static void usage_file_accepts_comments_and_no_entries(void** state) {
  (void)state;
  const char* path = temp_path();
  write_text(path, "# hello\nversion=1\n\nlast_ran=17\n# none\n");
  char* err = NULL;
  shareq_usage_file_t* file = shareq_usage_read(path, &err);
  assert_non_null(file);
  assert_int_equal(shareq_usage_last_ran(file), 17);
  assert_int_equal(shareq_usage_count(file), 0);
  shareq_usage_free(file);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(running_node_job_counts_nodes_under_its_account_share, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(running_gpu_job_counts_gpus_and_defaults_priority, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(slurm_option_name_is_the_priority_fallback, setup, teardown),
      cmocka_unit_test_setup_teardown(jobs_outside_families_or_shares_are_not_governed, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(pending_job_asks_each_family_once_in_partition_order, setup,
                                      teardown),
      cmocka_unit_test(sprio_columns_add_up_to_the_priority),
      cmocka_unit_test(usage_file_round_trips_exactly),
      cmocka_unit_test(corrupt_usage_files_are_refused_whole),
      cmocka_unit_test(usage_file_accepts_comments_and_no_entries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
