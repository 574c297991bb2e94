/*
 * priority/shareq's priority as sprio's columns (plugins/ctld/sprio_factors.h): the factors add up
 * to exactly the priority Slurm schedules by, for a job within quota, a borrowing job (also by
 * size, BorrowOrder=largest) and a job outside every family.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sprio_factors.h"

static double sprio_total(const priority_factors_t* o) {
  return o->priority_age + o->priority_assoc + o->priority_fs + o->priority_js + o->priority_part +
         o->priority_qos + ((double)o->priority_site - NICE_OFFSET) -
         ((double)o->nice - NICE_OFFSET);
}

static void sprio_columns_add_up_to_the_priority(void** state) {
  (void)state;
  /* within quota: tier 2^30, share rank 3, --share-priority 80, nice 0 (level 1300) */
  shareq_priority_parts_t within = {
      true, (1u << 30) + 3 * 262144 + 80 * 2600 + 1300, 1u << 30, 3, 80, 0, 0};
  priority_factors_t o;
  memset(&o, 0, sizeof(o));
  shareq_fill_priority_factors(&within, &o);
  assert_int_equal(o.priority_site - NICE_OFFSET, (1u << 30) + 1300);
  assert_true(o.priority_fs == 3 * 262144);
  assert_true(o.priority_assoc == 80 * 2600);
  assert_int_equal(o.nice, NICE_OFFSET);
  assert_true(o.priority_age == 0 && o.priority_js == 0 && o.tres_cnt == 0 &&
              o.priority_tres == NULL);
  assert_true(sprio_total(&o) == within.priority);

  /* borrowing, nice 100 (level 1200): NICE shows 100, SITE stays 1300 */
  shareq_priority_parts_t borrow = {true, 2 * 262144 + 10 * 2600 + 1200, 0, 2, 10, 100, 0};
  shareq_fill_priority_factors(&borrow, &o);
  assert_int_equal(o.priority_site - NICE_OFFSET, 1300);
  assert_int_equal(o.nice - NICE_OFFSET, 100);
  assert_true(sprio_total(&o) == borrow.priority);

  /* a negative nice (operators only) */
  shareq_priority_parts_t ahead = {true, 2 * 262144 + 10 * 2600 + 1350, 0, 2, 10, -50, 0};
  shareq_fill_priority_factors(&ahead, &o);
  assert_int_equal((int64_t)o.nice - (int64_t)NICE_OFFSET, -50);
  assert_true(sprio_total(&o) == ahead.priority);

  /* BorrowOrder=largest, a borrower of 8 GPUs (size class 4): JOBSIZE shows 4 * 2^26 */
  shareq_priority_parts_t largest = {
      true, 4 * (1u << 26) + 2 * 262144 + 10 * 2600 + 1300, 0, 2, 10, 0, 4};
  shareq_fill_priority_factors(&largest, &o);
  assert_true(o.priority_js == 4.0 * (1u << 26));
  assert_true(o.priority_fs == 2 * 262144);
  assert_int_equal(o.priority_site - NICE_OFFSET, 1300);
  assert_true(sprio_total(&o) == largest.priority);

  shareq_priority_parts_t outside = {false, 0, 0, 0, 0, 0, 0};
  shareq_fill_priority_factors(&outside, &o);
  assert_true(sprio_total(&o) == SHAREQ_OUTSIDE_PRIORITY);
  assert_true(o.priority_fs == 0 && o.priority_assoc == 0 && o.priority_js == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sprio_columns_add_up_to_the_priority),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
