/*
 * plugins/ctld/warm_pools.cpp itself, against fake Slurm records (job_record_t, node_record_t
 * built here), a fake node table and bitmap, and a fake controller view (fake_ctld.cpp:
 * configuration, StateSaveLocation in a temporary directory, a captured log). What it checks is
 * what slurmctld sees: SystemComment, AdminComment, the spank job environment, each node's
 * Extra, the state file, and the pools published for reserve mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "slurm_compat.h"
#include "src/slurmctld/slurmctld.h"

#include "fake_ctld.h"
#include "fake_xmalloc.h"
#include "submit_shim.h"

/* ---- the fake node table and the Slurm functions warm_pools.cpp calls ------------------- */

enum { kNodes = 6, kTres = 8, kGpuPos = 5 };
static const char* const kNodeNames[kNodes] = {"n1", "n2", "n3", "n4", "g1", "g2"};

node_record_t** node_record_table_ptr = NULL;
int node_record_count = 0;
time_t last_node_update = 0;

node_record_t* find_node_record(char* name) {
  for (int i = 0; i < node_record_count; ++i) {
    if (strcmp(node_record_table_ptr[i]->name, name) == 0) return node_record_table_ptr[i];
  }
  return NULL;
}

/* A fake bitmap: bit i of the first word is node i. */
int bit_test(bitstr_t* b, bitoff_t bit) { return (int)((b[0] >> bit) & 1); }

/* mail_job_info: records what the last mail would say (the subject's name, the type, the
 * recipient and the SPANK environment MailProg would get), and how many were queued. */
static int g_mails = 0;
static char g_mail_name[1024], g_mail_user[64], g_mail_env[1024];
static uint16_t g_mail_type = 0;
void mail_job_info(job_record_t* job, uint16_t mail_type) {
  ++g_mails;
  g_mail_type = mail_type;
  snprintf(g_mail_name, sizeof g_mail_name, "%s", job->name != NULL ? job->name : "");
  snprintf(g_mail_user, sizeof g_mail_user, "%s", job->mail_user != NULL ? job->mail_user : "");
  g_mail_env[0] = '\0';
  for (uint32_t i = 0; i < job->spank_job_env_size; ++i) {
    strncat(g_mail_env, job->spank_job_env[i], sizeof g_mail_env - strlen(g_mail_env) - 2);
    strcat(g_mail_env, "\n");
  }
}

/* Jobs here have no part_ptr_list, so these are never reached. */
list_itr_t* list_iterator_create(list_t* l) {
  (void)l;
  fail_msg("list_iterator_create called");
  return NULL;
}
void* list_next(list_itr_t* i) {
  (void)i;
  return NULL;
}
void list_iterator_destroy(list_itr_t* i) { (void)i; }

static void nodes_create(void) {
  node_record_table_ptr = calloc(kNodes, sizeof(node_record_t*));
  for (int i = 0; i < kNodes; ++i) {
    node_record_t* node = calloc(1, sizeof(node_record_t));
    node->name = strdup(kNodeNames[i]);
    node->index = (uint32_t)i;
    node->node_state = NODE_STATE_IDLE;
    node->tres_cnt = calloc(kTres, sizeof(uint64_t));
    node->tres_cnt[kGpuPos] = node->name[0] == 'g' ? 8 : 0;
    node_record_table_ptr[i] = node;
  }
  node_record_count = kNodes;
}

static void nodes_destroy(void) {
  for (int i = 0; i < kNodes; ++i) {
    node_record_t* node = node_record_table_ptr[i];
    free(node->name);
    free(node->tres_cnt);
    free(node);
  }
  free(node_record_table_ptr);
  node_record_table_ptr = NULL;
  node_record_count = 0;
}

/* The nodes' Extra, written through the fake allocator while a test runs, go before the test
 * ends (CMocka counts blocks still allocated then as leaks). */
static void free_extras(void) {
  for (int i = 0; i < node_record_count; ++i) slurm_xfree((void**)&node_record_table_ptr[i]->extra);
}

static node_record_t* node(const char* name) { return find_node_record((char*)name); }
static const char* extra(const char* name) {
  const char* e = node(name)->extra;
  return e != NULL ? e : "";
}

/* ---- jobs --------------------------------------------------------------------------------- */

static const char* const kDigestA =
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

typedef struct {
  job_record_t job;
  job_details_t details;
  part_record_t part;
  bitstr_t bits;
} fake_job_t;

/* A job of `uid` in `account` and `partition`, allocated `nodes` ("n1,n2"; "" while pending),
 * asking for `min_nodes`, with image kDigestA and --keep-alive=`keep_alive` (0: none). */
static fake_job_t* new_job(uint32_t id, uint32_t uid, const char* account, const char* partition,
                           const char* nodes, uint32_t min_nodes, int keep_alive) {
  fake_job_t* f = calloc(1, sizeof(*f));
  f->job.job_id = id;
  f->job.user_id = uid;
  f->job.account = xstrdup(account);
  f->part.name = (char*)partition;
  f->job.part_ptr = &f->part;
  f->details.min_nodes = min_nodes;
  f->job.details = &f->details;
  for (int i = 0; i < kNodes; ++i) {
    const char* at = strstr(nodes, kNodeNames[i]);
    if (at != NULL) f->bits |= (bitstr_t)1 << i;
  }
  f->job.node_bitmap = &f->bits;
  char digest[128];
  char keep[64];
  snprintf(digest, sizeof digest, "SHAREQ_IMAGE_DIGEST=%s", kDigestA);
  snprintf(keep, sizeof keep, "SHAREQ_KEEP_ALIVE=%d", keep_alive);
  const char* entries[] = {"SHAREQ_IMAGE=llama", digest, keep_alive > 0 ? keep : NULL, NULL};
  f->job.spank_job_env = fake_env(entries);
  f->job.spank_job_env_size = keep_alive > 0 ? 3 : 2;
  f->job.job_state = JOB_RUNNING;
  return f;
}

static void free_job(fake_job_t* f) {
  fake_env_free(f->job.spank_job_env, f->job.spank_job_env_size);
  slurm_xfree((void**)&f->job.account);
  slurm_xfree((void**)&f->job.system_comment);
  slurm_xfree((void**)&f->job.admin_comment);
  free(f);
}

static const char* env_of(fake_job_t* f, const char* name) {
  const char* v = shareq_env_get(f->job.spank_job_env, f->job.spank_job_env_size, name);
  return v != NULL ? v : "";
}

static const char* text(const char* s) { return s != NULL ? s : ""; }

/* Ends the job in `state` (requid: who cancelled it) at `now`. */
static void end_job(fake_job_t* f, uint32_t state, uint32_t requid, int64_t now) {
  f->job.job_state = state;
  f->job.requid = requid;
  warm_test_job_ended(&f->job, now);
}

enum { kAlice = 4242, kBob = 4343, kRoot = 0 };

/* Job 10 of alice on n2, --keep-alive=300, completed at 1000: pool wp-1 until 1300. */
static void make_pool_on_n2(void) {
  fake_job_t* first = new_job(10, kAlice, "prodexp1", "p4", "n2", 1, 300);
  warm_test_job_started(&first->job, 900);
  end_job(first, JOB_COMPLETE, kAlice, 1000);
  assert_non_null(strstr(text(first->job.system_comment), "left nodes warm as wp-1 until"));
  assert_non_null(strstr(text(first->job.admin_comment), "shareq-left-warm:wp-1"));
  free_job(first);
}

/* ---- fixture ------------------------------------------------------------------------------ */

static const char* const kConfBase =
    "Family=p4 Partitions=p4 Capacity=node=4\n"
    "Family=p5 Partitions=p5 Capacity=gres/gpu=16\n"
    "Share=ProdExp1 Family=p4 Quota=node=2\n"
    "Share=ProdExp2 Family=p4 Quota=node=2\n"
    "Share=ProdExp1 Family=p5 Quota=gres/gpu=16\n";

static void set_mode(const char* mode) {
  char conf[1024];
  snprintf(conf, sizeof conf, "%sWarmPoolMode=%s\n", kConfBase, mode);
  fake_ctld_set_conf(conf);
}

static char g_dir[64];

static char* state_file(void) {
  static char path[128];
  snprintf(path, sizeof path, "%s/shareq_warm_pools", g_dir);
  return path;
}

static int setup(void** state) {
  (void)state;
  strcpy(g_dir, "/tmp/shareq-warm-test-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  fake_ctld_set_state_dir(g_dir);
  fake_ctld_gpu_pos = kGpuPos;
  set_mode("prefer");
  warm_test_unload();
  fake_ctld_log_clear();
  nodes_create();
  return 0;
}

static int teardown(void** state) {
  (void)state;
  warm_test_flush_state();
  warm_test_unload();
  nodes_destroy();
  unlink(state_file());
  char tmp[160];
  snprintf(tmp, sizeof tmp, "%s.new", state_file());
  unlink(tmp);
  rmdir(g_dir);
  return 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void no_pool_means_no_waiting_pool_and_no_advice(void** state) {
  (void)state;
  assert_false(warm_test_pools_waiting());
  fake_job_t* job = new_job(11, kAlice, "prodexp1", "p4", "", 1, 0);
  const char* candidates[] = {"n1", "n2"};
  char prefer[64], avoid[64], forbid[64];
  assert_int_equal(warm_test_advice(&job->job, candidates, 2, 1000, prefer, avoid, forbid, 64), 0);
  assert_string_equal(avoid, "");
  free_job(job);
}

static void job_ended_with_keep_alive_makes_a_pool(void** state) {
  (void)state;
  make_pool_on_n2();
  assert_true(warm_test_pools_waiting());
  warm_test_periodic(1001);
  assert_non_null(strstr(extra("n2"), "shareq:wp-1,available,owner="));
  assert_non_null(strstr(extra("n2"), "/prodexp1,until=1300,key=")); /* epoch seconds */
  assert_non_null(strstr(extra("n2"), "nodes=1"));
  assert_string_equal(extra("n1"), "");
  assert_non_null(strstr(fake_ctld_log(), "wp-1 available until 1300 nodes=n2"));
  warm_test_flush_state();
  assert_int_equal(access(state_file(), R_OK), 0);
  free_extras();
}

static void a_pool_is_mailed_only_with_mail_type_end(void** state) {
  (void)state;
  g_mails = 0;
  fake_job_t* quiet = new_job(30, kAlice, "prodexp1", "p4", "n1", 1, 300);
  warm_test_job_started(&quiet->job, 900);
  end_job(quiet, JOB_COMPLETE, kAlice, 1000);
  assert_int_equal(g_mails, 0);
  fake_job_t* mailed = new_job(31, kAlice, "prodexp1", "p4", "n2", 1, 300);
  mailed->job.mail_type = MAIL_JOB_END | MAIL_JOB_FAIL;
  mailed->job.mail_user = (char*)"alice@example.org";
  mailed->job.name = (char*)"train";
  warm_test_job_started(&mailed->job, 900);
  end_job(mailed, JOB_COMPLETE, kAlice, 1000);
  assert_int_equal(g_mails, 1);
  assert_int_equal(g_mail_type, MAIL_JOB_END);
  assert_string_equal(g_mail_user, "alice@example.org");
  assert_non_null(strstr(g_mail_name,
                         "shareq: job 31 left its nodes warm as wp-2: n2 (partition "
                         "p4) until "));
  assert_non_null(strstr(g_mail_name, "(in 300 s); a job reuses them when it has the same"));
  assert_non_null(strstr(g_mail_env,
                         "SHAREQ_WARM_POOL=wp-2\nSHAREQ_WARM_NODES=n2\n"
                         "SHAREQ_WARM_UNTIL=1300\n"));
  assert_string_equal(mailed->job.name, "train"); /* the job itself keeps its name */
  mailed->job.mail_user = NULL;
  mailed->job.name = NULL;
  free_job(quiet);
  free_job(mailed);
  free_extras();
}

static void job_ended_by_node_failure_or_admin_cancel_makes_none(void** state) {
  (void)state;
  fake_job_t* failed = new_job(20, kAlice, "prodexp1", "p4", "n1", 1, 300);
  warm_test_job_started(&failed->job, 900);
  end_job(failed, JOB_NODE_FAIL, kAlice, 1000);
  fake_job_t* cancelled = new_job(21, kAlice, "prodexp1", "p4", "n3", 1, 300);
  warm_test_job_started(&cancelled->job, 900);
  end_job(cancelled, JOB_CANCELLED, kRoot, 1000); /* by an admin, not by alice */
  warm_test_periodic(1001);
  assert_false(warm_test_pools_waiting());
  assert_string_equal(extra("n1"), "");
  assert_string_equal(extra("n3"), "");
  assert_null(strstr(text(failed->job.system_comment), "left nodes warm"));
  assert_null(strstr(text(cancelled->job.system_comment), "left nodes warm"));
  free_job(failed);
  free_job(cancelled);
  free_extras();
}

static void matching_job_is_advised_to_the_pool_and_claims_it(void** state) {
  (void)state;
  make_pool_on_n2();
  fake_job_t* next = new_job(30, kAlice, "prodexp1", "p4", "", 1, 0);
  const char* candidates[] = {"n1", "n2", "n3", "n4"};
  char prefer[64], avoid[64], forbid[64];
  assert_int_equal(warm_test_advice(&next->job, candidates, 4, 1100, prefer, avoid, forbid, 64), 1);
  assert_string_equal(prefer, "n2");
  /* Another user's job avoids the warm node (prefer mode) and gets no pool. */
  fake_job_t* other = new_job(31, kBob, "prodexp2", "p4", "", 1, 0);
  assert_int_equal(warm_test_advice(&other->job, candidates, 4, 1100, prefer, avoid, forbid, 64),
                   0);
  assert_string_equal(avoid, "n2");
  assert_string_equal(forbid, "");

  next->bits = (bitstr_t)1 << 1; /* placed on n2 */
  warm_test_job_started(&next->job, 1100);
  assert_non_null(
      strstr(text(next->job.system_comment), "shareq: warm start on wp-1 (origin job 10"));
  assert_non_null(strstr(text(next->job.admin_comment), "shareq-warm-start:wp-1"));
  assert_string_equal(env_of(next, "SHAREQ_WARM_NAME"), "warm-10");
  assert_false(warm_test_pools_waiting()); /* in use */
  warm_test_periodic(1101);
  assert_non_null(strstr(extra("n2"), "shareq:wp-1,in-use,"));
  assert_non_null(strstr(extra("n2"), ",job=30,"));
  free_job(next);
  free_job(other);
  free_extras();
}

static void other_job_taking_warm_nodes_in_prefer_mode_ends_the_pool(void** state) {
  (void)state;
  make_pool_on_n2();
  fake_job_t* other = new_job(40, kBob, "prodexp2", "p4", "n2", 1, 0);
  warm_test_job_started(&other->job, 1100);
  assert_string_equal(env_of(other, "SHAREQ_WARM_NAME"), "");
  /* Its prolog removes the ended pool's warm directory now, not at the pool's deadline. */
  assert_string_equal(env_of(other, "SHAREQ_WARM_ENDED"), "warm-10");
  assert_non_null(strstr(text(other->job.system_comment), "cold start"));
  warm_test_periodic(1101);
  assert_string_equal(extra("n2"), "");
  assert_non_null(strstr(fake_ctld_log(), "nodes taken by job 40"));
  free_job(other);
  free_extras();
}

static void node_down_ends_the_pool(void** state) {
  (void)state;
  make_pool_on_n2();
  warm_test_periodic(1001);
  node("n2")->node_state = NODE_STATE_DOWN;
  warm_test_periodic(1010);
  assert_string_equal(extra("n2"), "");
  assert_false(warm_test_pools_waiting());
  assert_non_null(strstr(fake_ctld_log(), "wp-1 terminated"));
  assert_non_null(strstr(fake_ctld_log(), "node n2 went down"));
  /* The next job on n2 once it is back removes the pool's warm directory; a job elsewhere is not
   * told, nor a later job on n2 (the first one's prolog has done it). */
  fake_job_t* elsewhere = new_job(50, kBob, "prodexp2", "p4", "n3", 1, 0);
  warm_test_job_started(&elsewhere->job, 1020);
  assert_string_equal(env_of(elsewhere, "SHAREQ_WARM_ENDED"), "");
  fake_job_t* back = new_job(51, kBob, "prodexp2", "p4", "n2", 1, 0);
  warm_test_job_started(&back->job, 1030);
  assert_string_equal(env_of(back, "SHAREQ_WARM_ENDED"), "warm-10");
  fake_job_t* later = new_job(52, kBob, "prodexp2", "p4", "n2", 1, 0);
  warm_test_job_started(&later->job, 1040);
  assert_string_equal(env_of(later, "SHAREQ_WARM_ENDED"), "");
  free_job(elsewhere);
  free_job(back);
  free_job(later);
  free_extras();
}

static void pools_expire_and_leave_the_nodes_extra(void** state) {
  (void)state;
  make_pool_on_n2();
  warm_test_periodic(1001);
  warm_test_periodic(1300);
  assert_string_equal(extra("n2"), "");
  assert_non_null(strstr(fake_ctld_log(), "keep-alive ran out"));
  free_extras();
}

static void an_admin_ends_a_pool_through_its_nodes_extra(void** state) {
  (void)state;
  make_pool_on_n2();
  warm_test_periodic(1001);
  slurm_xfree((void**)&node("n2")->extra);
  node("n2")->extra = xstrdup("shareq:end"); /* shareq pools end wp-1 */
  warm_test_periodic(1010);
  assert_string_equal(extra("n2"), "");
  assert_false(warm_test_pools_waiting());
  assert_non_null(strstr(fake_ctld_log(), "wp-1 terminated"));
  assert_non_null(strstr(fake_ctld_log(), "ended by an admin"));
  /* The next job on n2 removes the warm directory, even after slurmctld restarts. */
  warm_test_unload();
  fake_job_t* next = new_job(60, kBob, "prodexp2", "p4", "n2", 1, 0);
  warm_test_job_started(&next->job, 1020);
  assert_string_equal(env_of(next, "SHAREQ_WARM_ENDED"), "warm-10");
  free_job(next);
  free_extras();
}

static void an_admins_extra_is_left_alone(void** state) {
  (void)state;
  node("n1")->extra = xstrdup("rack=7");
  make_pool_on_n2();
  warm_test_periodic(1001);
  warm_test_periodic(1300);
  assert_string_equal(extra("n1"), "rack=7");
  free_extras();
}

static void state_is_written_and_read_back_after_a_restart(void** state) {
  (void)state;
  make_pool_on_n2();
  warm_test_unload(); /* slurmctld restarts */
  fake_ctld_log_clear();
  warm_test_periodic(1100);
  assert_non_null(strstr(fake_ctld_log(), "restored 1 warm pool(s)"));
  assert_non_null(strstr(extra("n2"), "shareq:wp-1,available,"));
  /* The restored pool still serves a matching job. */
  fake_job_t* next = new_job(50, kAlice, "prodexp1", "p4", "", 1, 0);
  const char* candidates[] = {"n2"};
  char prefer[64], avoid[64], forbid[64];
  assert_int_equal(warm_test_advice(&next->job, candidates, 1, 1100, prefer, avoid, forbid, 64), 1);
  free_job(next);
  free_extras();
}

static void a_corrupt_state_file_starts_empty_and_says_why(void** state) {
  (void)state;
  FILE* f = fopen(state_file(), "w");
  assert_non_null(f);
  fputs("this is not a warm-pool state file\n", f);
  fclose(f);
  assert_false(warm_test_pools_waiting());
  assert_non_null(strstr(fake_ctld_log(), "starting with no warm pools"));
}

static void reserve_mode_publishes_waiting_pools_with_their_gpus(void** state) {
  (void)state;
  set_mode("reserve");
  fake_job_t* first = new_job(60, kAlice, "prodexp1", "p5", "g1,g2", 2, 300);
  warm_test_job_started(&first->job, 900);
  end_job(first, JOB_COMPLETE, kAlice, 1000);
  assert_int_equal(fake_ctld_reserved_count(), 1);
  assert_int_equal(fake_ctld_reserved_nodes(0), 2);
  assert_int_equal(fake_ctld_reserved_gpus(0), 16);
  /* A matching two-node job would claim it; a one-node job does not match (node count). */
  fake_job_t* next = new_job(61, kAlice, "prodexp1", "p5", "", 2, 0);
  fake_job_t* single = new_job(62, kAlice, "prodexp1", "p5", "", 1, 0);
  assert_true(warm_test_reserved_claim(&next->job, 1100));
  assert_false(warm_test_reserved_claim(&single->job, 1100));
  /* Other jobs may not use the warm nodes at all. */
  const char* candidates[] = {"g1", "g2"};
  char prefer[64], avoid[64], forbid[64];
  assert_int_equal(warm_test_advice(&single->job, candidates, 2, 1100, prefer, avoid, forbid, 64),
                   0);
  assert_string_equal(forbid, "g1,g2");
  /* Claimed: the job's own usage counts now, the pool no longer does. */
  next->bits = ((bitstr_t)1 << 4) | ((bitstr_t)1 << 5);
  warm_test_job_started(&next->job, 1100);
  assert_int_equal(fake_ctld_reserved_count(), 0);
  free_job(first);
  free_job(next);
  free_job(single);
}

static void prefer_mode_publishes_nothing(void** state) {
  (void)state;
  make_pool_on_n2();
  assert_int_equal(fake_ctld_reserved_count(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(no_pool_means_no_waiting_pool_and_no_advice, setup, teardown),
      cmocka_unit_test_setup_teardown(job_ended_with_keep_alive_makes_a_pool, setup, teardown),
      cmocka_unit_test_setup_teardown(a_pool_is_mailed_only_with_mail_type_end, setup, teardown),
      cmocka_unit_test_setup_teardown(job_ended_by_node_failure_or_admin_cancel_makes_none, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(matching_job_is_advised_to_the_pool_and_claims_it, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(other_job_taking_warm_nodes_in_prefer_mode_ends_the_pool,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(node_down_ends_the_pool, setup, teardown),
      cmocka_unit_test_setup_teardown(pools_expire_and_leave_the_nodes_extra, setup, teardown),
      cmocka_unit_test_setup_teardown(an_admin_ends_a_pool_through_its_nodes_extra, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(an_admins_extra_is_left_alone, setup, teardown),
      cmocka_unit_test_setup_teardown(state_is_written_and_read_back_after_a_restart, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_corrupt_state_file_starts_empty_and_says_why, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(reserve_mode_publishes_waiting_pools_with_their_gpus, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(prefer_mode_publishes_nothing, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
