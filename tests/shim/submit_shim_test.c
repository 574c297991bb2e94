/*
 * The plugins' C layer over the core (plugins/common/submit_shim.h) against fake Slurm
 * allocators: reading the forwarded flags from spank_job_env, splitting partitions, writing the
 * canonical values back, and the error message a user sees.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <slurm/slurm_errno.h>

#include "fake_xmalloc.h"
#include "submit_shim.h"
#include "two_family_conf.h"

static const char* const kConf = SHAREQ_TWO_FAMILY_CONF;

/* A job as job_submit sees it, owning xmalloc'd fields. */
typedef struct {
  char* account;
  char* admin_comment;
  char** env;
  uint32_t env_size;
  shareq_job_fields_t fields;
  char* err;
} job_t;

static void job_init(job_t* job, const char* account, const char* const* env) {
  memset(job, 0, sizeof(*job));
  job->account = account ? xstrdup(account) : NULL;
  job->env = fake_env(env);
  while (env[job->env_size] != NULL) job->env_size++;
  job->fields.account = &job->account;
  job->fields.admin_comment = &job->admin_comment;
  job->fields.spank_env = &job->env;
  job->fields.spank_env_size = &job->env_size;
}

/* Whether `text` ends with `suffix`. */
static bool ends_with(const char* text, const char* suffix) {
  const size_t length = strlen(text);
  const size_t suffix_length = strlen(suffix);
  return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

static void job_free(job_t* job) {
  slurm_xfree((void**)&job->account);
  slurm_xfree((void**)&job->admin_comment);
  slurm_xfree((void**)&job->err);
  fake_env_free(job->env, job->env_size);
}

static int submit(const shareq_conf_t* conf, job_t* job, const char* partitions) {
  shareq_admission_t a = {job->account, partitions, "p4", false, true, NULL};
  return shareq_admit(conf, &a, &job->fields, &job->err);
}

static int setup_conf(void** state) {
  char* errors = NULL;
  *state = shareq_conf_parse(kConf, "shareq.conf", &errors);
  assert_null(errors);
  assert_non_null(*state);
  return 0;
}

static int teardown_conf(void** state) {
  shareq_conf_free(*state);
  return 0;
}

static void env_get_matches_whole_names_only(void** state) {
  (void)state;
  const char* const entries[] = {"SHAREQ_SHARE_PRIORITY=80", "SHAREQ_SHARE=ProdExp1",
                                 "SHAREQ_SHARE_X", NULL};
  char** env = fake_env(entries);
  assert_string_equal(shareq_env_get(env, 3, "SHAREQ_SHARE"), "ProdExp1");
  assert_string_equal(shareq_env_get(env, 3, "SHAREQ_SHARE_PRIORITY"), "80");
  assert_null(shareq_env_get(env, 3, "SHAREQ_SHARE_X")); /* no '=' */
  assert_null(shareq_env_get(env, 3, "SHAREQ"));
  assert_null(shareq_env_get(NULL, 0, "SHAREQ_SHARE"));
  fake_env_free(env, 3);
}

static void env_set_replaces_then_appends(void** state) {
  (void)state;
  const char* const entries[] = {"A=1", "SHAREQ_SHARE=ProdExp1", NULL};
  char** env = fake_env(entries);
  uint32_t size = 2;
  shareq_env_set(&env, &size, "SHAREQ_SHARE", "prodexp1");
  assert_int_equal(size, 2);
  assert_string_equal(env[1], "SHAREQ_SHARE=prodexp1");
  shareq_env_set(&env, &size, "SHAREQ_IMAGE", "llama-train");
  assert_int_equal(size, 3);
  assert_string_equal(env[0], "A=1");
  assert_string_equal(env[2], "SHAREQ_IMAGE=llama-train");
  assert_null(env[3]);
  fake_env_free(env, size);
}

static void env_set_into_an_empty_array(void** state) {
  (void)state;
  char** env = NULL;
  uint32_t size = 0;
  shareq_env_set(&env, &size, "SHAREQ_KEEP_ALIVE", "900");
  assert_int_equal(size, 1);
  assert_string_equal(env[0], "SHAREQ_KEEP_ALIVE=900");
  assert_null(env[1]);
  fake_env_free(env, size);
}

static void env_unset_removes_every_entry(void** state) {
  (void)state;
  const char* const entries[] = {"X=1", "SHAREQ_SHARE=a", "Y=2", "SHAREQ_SHARE=b", NULL};
  char** env = fake_env(entries);
  uint32_t size = 4;
  shareq_env_unset(&env, &size, "SHAREQ_SHARE");
  assert_int_equal(size, 2);
  assert_string_equal(env[0], "X=1");
  assert_string_equal(env[1], "Y=2");
  assert_null(env[2]);
  fake_env_free(env, size);
}

static void flag_prefers_shareq_name_over_slurm_option_name(void** state) {
  (void)state;
  const char* const entries[] = {"_SLURM_SPANK_OPTION_shareq_share=FromSlurm",
                                 "SHAREQ_SHARE=FromPlugin",
                                 "_SLURM_SPANK_OPTION_shareq_share_priority=7", NULL};
  char** env = fake_env(entries);
  assert_string_equal(shareq_env_flag(env, 3, SHAREQ_FLAG_SHARE), "FromPlugin");
  assert_string_equal(shareq_env_flag(env, 3, SHAREQ_FLAG_PRIORITY), "7");
  assert_null(shareq_env_flag(env, 3, SHAREQ_FLAG_IMAGE));
  fake_env_free(env, 3);
}

static void accepted_job_gets_share_as_account_and_canonical_values(void** state) {
  const char* const env[] = {"SHAREQ_SHARE=ProdExp1", "SHAREQ_SHARE_PRIORITY=80",
                             "SHAREQ_IMAGE=llama-train", "SHAREQ_KEEP_ALIVE=0900", NULL};
  job_t job;
  job_init(&job, "research", env);
  assert_int_equal(submit(*state, &job, "p4"), SLURM_SUCCESS);
  assert_null(job.err);
  assert_string_equal(job.account, "prodexp1");
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "prodexp1");
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE_PRIORITY"), "80");
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_IMAGE"), "llama-train");
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_KEEP_ALIVE"), "900");
  assert_int_equal(job.env_size, 4);
  assert_string_equal(job.admin_comment,
                      "shareq:share=prodexp1,priority=80,keep_alive=900,image=llama-train");
  job_free(&job);
}

static void account_is_the_share_without_flags(void** state) {
  const char* const env[] = {NULL};
  job_t job;
  job_init(&job, "Research", env);
  assert_int_equal(submit(*state, &job, "p5"), SLURM_SUCCESS);
  assert_string_equal(job.account, "Research"); /* kept: only --share names the account */
  assert_string_equal(job.admin_comment, "shareq:share=research,priority=50,keep_alive=0");
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "research");
  job_free(&job);
}

static void slurm_option_names_are_read_when_plugin_names_are_absent(void** state) {
  const char* const env[] = {"_SLURM_SPANK_OPTION_shareq_share=ProdExp2",
                             "_SLURM_SPANK_OPTION_shareq_share_priority=3", NULL};
  job_t job;
  job_init(&job, NULL, env);
  assert_int_equal(submit(*state, &job, "p5"), SLURM_SUCCESS);
  assert_string_equal(job.account, "prodexp2");
  assert_string_equal(job.admin_comment, "shareq:share=prodexp2,priority=3,keep_alive=0");
  job_free(&job);
}

static void bad_priority_is_refused_with_the_flag_named_and_job_untouched(void** state) {
  const char* const env[] = {"SHAREQ_SHARE=ProdExp1", "SHAREQ_SHARE_PRIORITY=100", NULL};
  job_t job;
  job_init(&job, "research", env);
  assert_int_equal(submit(*state, &job, "p4"), SLURM_ERROR);
  assert_non_null(job.err);
  assert_true(strncmp(job.err, "shareq: --share-priority: ", 26) == 0);
  /* The value came from the variable alone (no flag: Slurm's option name is absent). */
  assert_true(ends_with(job.err, " (from SHAREQ_SHARE_PRIORITY)"));
  assert_string_equal(job.account, "research");
  assert_null(job.admin_comment);
  assert_int_equal(job.env_size, 2);
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "ProdExp1");
  job_free(&job);
}

/* With the SPANK plugin a command-line flag reaches job_submit under both names: the refusal
 * names the flag alone. */
static void a_refused_command_line_flag_names_no_variable(void** state) {
  const char* const env[] = {"SHAREQ_SHARE_PRIORITY=100",
                             "_SLURM_SPANK_OPTION_shareq_share_priority=100", NULL};
  job_t job;
  job_init(&job, "prodexp1", env);
  assert_int_equal(submit(*state, &job, "p4"), SLURM_ERROR);
  assert_true(strncmp(job.err, "shareq: --share-priority: ", 26) == 0);
  assert_null(strstr(job.err, "(from"));
  job_free(&job);
}

static void keep_alive_above_the_configured_maximum_is_refused(void** state) {
  const char* const env[] = {"SHAREQ_KEEP_ALIVE=3601", NULL};
  job_t job;
  job_init(&job, "prodexp1", env);
  assert_int_equal(submit(*state, &job, "p4"), SLURM_ERROR);
  assert_true(strncmp(job.err, "shareq: --keep-alive: ", 22) == 0);
  job_free(&job);
}

static void unknown_share_is_an_invalid_account(void** state) {
  const char* const env[] = {"SHAREQ_SHARE=nosuch", NULL};
  job_t job;
  job_init(&job, "prodexp1", env);
  assert_int_equal(submit(*state, &job, "p4"), ESLURM_INVALID_ACCOUNT);
  assert_true(strncmp(job.err, "shareq: --share: ", 17) == 0);
  assert_non_null(strstr(job.err, "nosuch"));
  assert_true(ends_with(job.err, " (from SHAREQ_SHARE)"));
  job_free(&job);
}

static void every_partition_of_a_list_is_checked(void** state) {
  /* ProdExp1 has a quota in p4 only: "-p p4,p5" must be refused, naming p5. */
  const char* const env[] = {"SHAREQ_SHARE=ProdExp1", NULL};
  job_t job;
  job_init(&job, NULL, env);
  assert_int_equal(submit(*state, &job, "p4,p5"), ESLURM_INVALID_ACCOUNT);
  assert_non_null(strstr(job.err, "p5"));
  job_free(&job);

  const char* const env2[] = {"SHAREQ_SHARE=ProdExp2", NULL};
  job_init(&job, NULL, env2);
  assert_int_equal(submit(*state, &job, "p5,p4"), SLURM_SUCCESS);
  assert_string_equal(job.account, "prodexp2");
  job_free(&job);
}

static void default_partition_is_used_when_none_is_given(void** state) {
  /* Research has no quota in p4, the default partition. */
  const char* const env[] = {"SHAREQ_SHARE=Research", NULL};
  job_t job;
  job_init(&job, NULL, env);
  assert_int_equal(submit(*state, &job, NULL), ESLURM_INVALID_ACCOUNT);
  assert_non_null(strstr(job.err, "p4"));
  job_free(&job);
}

static void ungoverned_job_without_flags_is_left_alone(void** state) {
  const char* const env[] = {"OTHER=1", NULL};
  job_t job;
  job_init(&job, "whatever", env);
  assert_int_equal(submit(*state, &job, "debug"), SLURM_SUCCESS);
  assert_string_equal(job.account, "whatever");
  assert_null(job.admin_comment);
  assert_int_equal(job.env_size, 1);
  job_free(&job);
}

static void no_good_config_refuses_share_only(void** state) {
  (void)state;
  const char* const with_share[] = {"SHAREQ_SHARE=ProdExp1", NULL};
  job_t job;
  job_init(&job, "prodexp1", with_share);
  assert_int_equal(submit(NULL, &job, "p4"), ESLURM_INVALID_ACCOUNT);
  assert_non_null(strstr(job.err, "shareq.conf"));
  assert_true(ends_with(job.err, " (from SHAREQ_SHARE)"));
  job_free(&job);

  const char* const without[] = {"SHAREQ_SHARE_PRIORITY=5", NULL};
  job_init(&job, "prodexp1", without);
  assert_int_equal(submit(NULL, &job, "p4"), SLURM_SUCCESS);
  assert_null(job.err);
  assert_null(job.admin_comment);
  job_free(&job);
}

static void modify_with_new_account_moves_the_share(void** state) {
  const char* const env[] = {"SHAREQ_SHARE=prodexp1", "SHAREQ_SHARE_PRIORITY=80",
                             "SHAREQ_KEEP_ALIVE=0", NULL};
  job_t job;
  job_init(&job, "prodexp1", env);
  shareq_admission_t a = {"prodexp2", "p4", "p4", true, false, NULL};
  assert_int_equal(shareq_admit(*state, &a, &job.fields, &job.err), SLURM_SUCCESS);
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "prodexp2");
  assert_string_equal(job.admin_comment, "shareq:share=prodexp2,priority=80,keep_alive=0");
  assert_string_equal(job.account, "prodexp1"); /* Slurm applies the account change itself */
  job_free(&job);
}

static void modify_cannot_escape_to_a_share_without_quota(void** state) {
  const char* const env[] = {"SHAREQ_SHARE=prodexp1", NULL};
  job_t job;
  job_init(&job, "prodexp1", env);
  /* Research has no quota in p4; ProdExp1 none in p5. */
  shareq_admission_t to_research = {"research", "p4", "p4", true, false, NULL};
  assert_int_equal(shareq_admit(*state, &to_research, &job.fields, &job.err),
                   ESLURM_INVALID_ACCOUNT);
  slurm_xfree((void**)&job.err);
  shareq_admission_t to_p5 = {"prodexp1", "p5", "p4", false, false, NULL};
  assert_int_equal(shareq_admit(*state, &to_p5, &job.fields, &job.err), ESLURM_INVALID_ACCOUNT);
  /* An update's share is the job's own: no variable is named. */
  assert_null(strstr(job.err, "(from"));
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "prodexp1");
  assert_null(job.admin_comment);
  job_free(&job);
}

/* scontrol update Account= on a pending job that may fall back: its partitions (p5, and p4 that
 * job_submit/shareq appended) are kept, and so are its home family and the words after its tag. */
static void modify_account_of_a_fallback_job_keeps_its_home_and_history(void** state) {
  (void)state;
  char* errors = NULL;
  shareq_conf_t* conf = shareq_conf_parse(
      "Family=p5 Partitions=p5 Capacity=gres/gpu=32 Fallback=p4\n"
      "Family=p4 Partitions=p4 Capacity=node=4\n"
      "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"
      "Share=ProdExp2 Family=p4 Quota=node=2\n"
      "Share=Research Family=p5 Quota=gres/gpu=16\n",
      "shareq.conf", &errors);
  assert_null(errors);
  assert_non_null(conf);
  const char* const env[] = {"SHAREQ_SHARE=prodexp2", "SHAREQ_SHARE_PRIORITY=60",
                             "SHAREQ_KEEP_ALIVE=0", NULL};
  job_t job;
  job_init(&job, "prodexp2", env);
  job.admin_comment = xstrdup(
      "shareq:share=prodexp2,priority=60,keep_alive=0,home=p5 "
      "shareq-failed:node_fail,nodes:p5n3,requeue:1");
  /* job_modify: the account changes, the partitions do not (fields.partition stays NULL). */
  shareq_admission_t same = {"prodexp2", "p5,p4", "p5", true, false, NULL};
  assert_int_equal(shareq_admit(conf, &same, &job.fields, &job.err), SLURM_SUCCESS);
  assert_string_equal(job.admin_comment,
                      "shareq:share=prodexp2,priority=60,keep_alive=0,home=p5 "
                      "shareq-failed:node_fail,nodes:p5n3,requeue:1");
  /* Research has no Share= line in p4, which the user did not ask for: accepted, home kept. */
  shareq_admission_t to_research = {"research", "p5,p4", "p5", true, false, NULL};
  assert_int_equal(shareq_admit(conf, &to_research, &job.fields, &job.err), SLURM_SUCCESS);
  assert_null(job.err);
  assert_string_equal(shareq_env_get(job.env, job.env_size, "SHAREQ_SHARE"), "research");
  assert_string_equal(job.admin_comment,
                      "shareq:share=research,priority=60,keep_alive=0,home=p5 "
                      "shareq-failed:node_fail,nodes:p5n3,requeue:1");
  job_free(&job);
  shareq_conf_free(conf);
}

static void bad_config_reports_every_error(void** state) {
  (void)state;
  char* errors = NULL;
  shareq_conf_t* conf =
      shareq_conf_parse("Family=p4 Partitions=p4 Capacity=node=4\nBogus=1\nDefaultPriority=500\n",
                        "/etc/slurm/shareq.conf", &errors);
  assert_null(conf);
  assert_non_null(errors);
  assert_non_null(strstr(errors, "/etc/slurm/shareq.conf:2"));
  assert_non_null(strstr(errors, "/etc/slurm/shareq.conf:3"));
  slurm_xfree((void**)&errors);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(env_get_matches_whole_names_only),
      cmocka_unit_test(env_set_replaces_then_appends),
      cmocka_unit_test(env_set_into_an_empty_array),
      cmocka_unit_test(env_unset_removes_every_entry),
      cmocka_unit_test(flag_prefers_shareq_name_over_slurm_option_name),
      cmocka_unit_test(accepted_job_gets_share_as_account_and_canonical_values),
      cmocka_unit_test(account_is_the_share_without_flags),
      cmocka_unit_test(slurm_option_names_are_read_when_plugin_names_are_absent),
      cmocka_unit_test(bad_priority_is_refused_with_the_flag_named_and_job_untouched),
      cmocka_unit_test(a_refused_command_line_flag_names_no_variable),
      cmocka_unit_test(keep_alive_above_the_configured_maximum_is_refused),
      cmocka_unit_test(unknown_share_is_an_invalid_account),
      cmocka_unit_test(every_partition_of_a_list_is_checked),
      cmocka_unit_test(default_partition_is_used_when_none_is_given),
      cmocka_unit_test(ungoverned_job_without_flags_is_left_alone),
      cmocka_unit_test(no_good_config_refuses_share_only),
      cmocka_unit_test(modify_with_new_account_moves_the_share),
      cmocka_unit_test(modify_cannot_escape_to_a_share_without_quota),
      cmocka_unit_test(modify_account_of_a_fallback_job_keeps_its_home_and_history),
      cmocka_unit_test(bad_config_reports_every_error),
  };
  return cmocka_run_group_tests(tests, setup_conf, teardown_conf);
}
