/*
 * The controller view's C helpers (plugins/ctld) against plain data: shareq's priority -> sprio's
 * columns, and the decayed-usage state file (round trip, corrupt files). A job record's fields ->
 * the core's types is the core's one translation (tests/unit/policy/job_record_test.cpp).
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
#include "usage_file.h"

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
      cmocka_unit_test(sprio_columns_add_up_to_the_priority),
      cmocka_unit_test(usage_file_round_trips_exactly),
      cmocka_unit_test(corrupt_usage_files_are_refused_whole),
      cmocka_unit_test(usage_file_accepts_comments_and_no_entries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
