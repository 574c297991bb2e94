/*
 * spank_shareq's client side (plugins/spank/spank_flags.h) against a mocked SPANK API: the user's
 * environment is a fake table, spank_job_control_setenv and slurm_error are CMocka mocks.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "spank_flags.h"

/* The user's environment: NULL-terminated "NAME=VALUE" strings. */
static const char* fake_getenv(void* ctx, const char* name) {
  const char* const* env = ctx;
  size_t n = strlen(name);
  for (; env != NULL && *env != NULL; env++) {
    if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
  }
  return NULL;
}

static int mock_job_setenv(void* ctx, const char* name, const char* value) {
  (void)ctx;
  check_expected(name);
  check_expected(value);
  return mock_type(int);
}

static void mock_error(void* ctx, const char* message) {
  (void)ctx;
  check_expected(message);
}

static shareq_spank_io_t io_with_env(const char* const* env) {
  shareq_spank_io_t io = {(void*)env, fake_getenv, mock_job_setenv, mock_error};
  return io;
}

static void expect_forward(const char* name, const char* value) {
  expect_string(mock_job_setenv, name, name);
  expect_string(mock_job_setenv, value, value);
  will_return(mock_job_setenv, 0);
}

/* check_expected with a prefix: a CMocka custom checker. */
static int starts_with(const LargestIntegralType value, const LargestIntegralType prefix) {
  const char* v = (const char*)(uintptr_t)value;
  const char* p = (const char*)(uintptr_t)prefix;
  return strncmp(v, p, strlen(p)) == 0;
}

static void expect_error_starting(const char* prefix) {
  expect_check(mock_error, message, starts_with, (uintptr_t)prefix);
}

static void check_accepts_good_values_and_names_the_field(void** state) {
  (void)state;
  assert_null(shareq_flag_check(SHAREQ_FLAG_SHARE, "ProdExp1"));
  assert_null(shareq_flag_check(SHAREQ_FLAG_PRIORITY, "99"));
  assert_null(shareq_flag_check(SHAREQ_FLAG_IMAGE, "llama-train"));
  assert_null(shareq_flag_check(SHAREQ_FLAG_KEEP_ALIVE, "1000000")); /* no maximum here */

  char* problem = shareq_flag_check(SHAREQ_FLAG_PRIORITY, "100");
  assert_non_null(problem);
  assert_true(strncmp(problem, "--share-priority: ", 18) == 0);
  free(problem);
  problem = shareq_flag_check(SHAREQ_FLAG_IMAGE, "../etc/passwd");
  assert_true(strncmp(problem, "--image: ", 9) == 0);
  free(problem);
  /* The client cannot know MaxKeepAlive: its words say so instead of quoting a number. */
  problem = shareq_flag_check(SHAREQ_FLAG_KEEP_ALIVE, "-1");
  assert_string_equal(problem,
                      "--keep-alive: \"-1\" is negative; allowed: a whole number of seconds, 0 or "
                      "more, up to the cluster's MaxKeepAlive");
  free(problem);
  problem = shareq_flag_check(SHAREQ_FLAG_SHARE, "");
  assert_true(strncmp(problem, "--share: ", 9) == 0);
  free(problem);
}

static void cli_value_is_checked_and_last_one_wins(void** state) {
  (void)state;
  shareq_spank_io_t io = io_with_env(NULL);
  shareq_cli_flags_t cli = {{NULL}};
  assert_int_equal(shareq_cli_set(&cli, SHAREQ_FLAG_PRIORITY, "10", &io), 0);
  assert_int_equal(shareq_cli_set(&cli, SHAREQ_FLAG_PRIORITY, "20", &io), 0);
  assert_string_equal(cli.value[SHAREQ_FLAG_PRIORITY], "20");

  expect_error_starting("shareq: --share-priority: ");
  assert_int_equal(shareq_cli_set(&cli, SHAREQ_FLAG_PRIORITY, "abc", &io), -1);
  assert_string_equal(cli.value[SHAREQ_FLAG_PRIORITY], "20"); /* kept */
  shareq_cli_clear(&cli);
  assert_null(cli.value[SHAREQ_FLAG_PRIORITY]);
  shareq_cli_clear(&cli); /* twice is fine */
}

static void command_line_wins_over_environment(void** state) {
  (void)state;
  const char* const env[] = {"SHAREQ_SHARE=FromEnv", "SHAREQ_SHARE_PRIORITY=80",
                             "SHAREQ_KEEP_ALIVE=", NULL};
  shareq_spank_io_t io = io_with_env(env);
  shareq_cli_flags_t cli = {{NULL}};
  assert_int_equal(shareq_cli_set(&cli, SHAREQ_FLAG_SHARE, "FromCli", &io), 0);
  assert_int_equal(shareq_cli_set(&cli, SHAREQ_FLAG_IMAGE, "llama-train", &io), 0);

  expect_forward("SHAREQ_SHARE", "FromCli");
  expect_forward("SHAREQ_SHARE_PRIORITY", "80");
  expect_forward("SHAREQ_IMAGE", "llama-train");
  /* SHAREQ_KEEP_ALIVE is empty: treated as unset, nothing forwarded. */
  assert_int_equal(shareq_flags_forward(&cli, &io), 0);

  /* Safe to call twice: the same values again. */
  expect_forward("SHAREQ_SHARE", "FromCli");
  expect_forward("SHAREQ_SHARE_PRIORITY", "80");
  expect_forward("SHAREQ_IMAGE", "llama-train");
  assert_int_equal(shareq_flags_forward(&cli, &io), 0);
  shareq_cli_clear(&cli);
}

static void nothing_given_forwards_nothing(void** state) {
  (void)state;
  const char* const env[] = {"PATH=/bin", NULL};
  shareq_spank_io_t io = io_with_env(env);
  shareq_cli_flags_t cli = {{NULL}};
  assert_int_equal(shareq_flags_forward(&cli, &io), 0); /* no mock call expected */
}

static void malformed_env_value_is_reported_and_still_forwarded(void** state) {
  (void)state;
  const char* const env[] = {"SHAREQ_SHARE_PRIORITY=high", "SHAREQ_KEEP_ALIVE=10s", NULL};
  shareq_spank_io_t io = io_with_env(env);
  shareq_cli_flags_t cli = {{NULL}};
  expect_forward("SHAREQ_SHARE_PRIORITY", "high");
  expect_error_starting("shareq: --share-priority: ");
  expect_forward("SHAREQ_KEEP_ALIVE", "10s");
  expect_error_starting("shareq: --keep-alive: ");
  assert_int_equal(shareq_flags_forward(&cli, &io), -1);
}

static int ends_with_env_name(const LargestIntegralType value, const LargestIntegralType unused) {
  (void)unused;
  const char* v = (const char*)(uintptr_t)value;
  const char* suffix = "(from SHAREQ_SHARE_PRIORITY)";
  size_t n = strlen(v), m = strlen(suffix);
  return n >= m && strcmp(v + n - m, suffix) == 0;
}

static void env_errors_name_the_variable(void** state) {
  (void)state;
  const char* const env[] = {"SHAREQ_SHARE_PRIORITY=-3", NULL};
  shareq_spank_io_t io = io_with_env(env);
  shareq_cli_flags_t cli = {{NULL}};
  expect_forward("SHAREQ_SHARE_PRIORITY", "-3");
  expect_check(mock_error, message, ends_with_env_name, 0);
  assert_int_equal(shareq_flags_forward(&cli, &io), -1);
}

static void failed_forward_is_an_error(void** state) {
  (void)state;
  const char* const env[] = {"SHAREQ_IMAGE=llama-train", NULL};
  shareq_spank_io_t io = io_with_env(env);
  shareq_cli_flags_t cli = {{NULL}};
  expect_string(mock_job_setenv, name, "SHAREQ_IMAGE");
  expect_string(mock_job_setenv, value, "llama-train");
  will_return(mock_job_setenv, -1);
  expect_string(mock_error, message, "shareq: cannot pass SHAREQ_IMAGE to the job");
  assert_int_equal(shareq_flags_forward(&cli, &io), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(check_accepts_good_values_and_names_the_field),
      cmocka_unit_test(cli_value_is_checked_and_last_one_wins),
      cmocka_unit_test(command_line_wins_over_environment),
      cmocka_unit_test(nothing_given_forwards_nothing),
      cmocka_unit_test(malformed_env_value_is_reported_and_still_forwarded),
      cmocka_unit_test(env_errors_name_the_variable),
      cmocka_unit_test(failed_forward_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
