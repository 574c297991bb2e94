/*
 * shareq's priority as sprio's columns. sprio sums the factors it receives into its PRIORITY
 * column (age + assoc + fairshare + jobsize + partition + qos + (site - NICE_OFFSET)
 * - (nice - NICE_OFFSET) + tres), so the parts below add up to exactly the priority Slurm
 * schedules by (policy/ordering.hpp:
 * tier + size_class * 2^26 + share_rank * 262144 + job_priority * 2600 + nice_level):
 *
 *   FAIRSHARE = share_rank * 262144: the share's standing (furthest below quota, or least decayed
 *               usage among borrowers), higher first
 *   JOBSIZE   = size_class * 2^26: under BorrowOrder=largest, a borrower's size class (1..15,
 *               larger jobs higher); 0 otherwise
 *   ASSOC     = --share-priority (0..99) * 2600, inside the share
 *   NICE      = the job's nice value (--nice, scontrol update Nice=), which sprio subtracts
 *   SITE      = the rest: tier + 1300, i.e. 1073743124 (2^30 + 1300) when the job fits its
 *               share's quota, else 1300, for a nice of -1200..1200; beyond that also the
 *               difference between the nice value and its coarser nice_level
 *   AGE, PARTITION, QOS, TRES = 0
 *
 * A job outside every family gets priority 1, all of it in SITE.
 * C interface for the CMocka tests.
 */
#ifndef SHAREQ_SPRIO_FACTORS_H
#define SHAREQ_SPRIO_FACTORS_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The priority of a job outside every family. */
#define SHAREQ_OUTSIDE_PRIORITY 1u

typedef struct shareq_priority_parts {
  bool governed;         /* false: outside every family (the rest is ignored) */
  uint32_t priority;     /* what Slurm sees */
  uint32_t tier;         /* 2^30 within quota, else 0 */
  uint32_t share_rank;   /* unweighted */
  uint32_t job_priority; /* 0..99 */
  int64_t nice;          /* the job's nice value, without NICE_OFFSET */
  uint32_t size_class;   /* BorrowOrder=largest borrowers: 1..15, else 0 (unweighted) */
} shareq_priority_parts_t;

/* Sets the factor fields of `out` (priority_*, nice, tres_cnt = 0; direct_prio = 0 where the
 * factors and the sprio row are one struct, 22.05); leaves job_id, partition, user_id and
 * cluster_name alone. Frees nothing: `out` must hold no TRES arrays. */
void shareq_fill_priority_factors(const shareq_priority_parts_t* parts, priority_factors_t* out);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_SPRIO_FACTORS_H */
