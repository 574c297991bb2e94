/*
 * A fake controller view for warm_pools_test: the few libshareq_ctld functions warm_pools.cpp
 * calls (configuration, StateSaveLocation, log, the GPU TRES position, the reserved-pool
 * publication), with controls for the test, and C entry points to warm_pools.cpp's C++ API.
 */
#ifndef SHAREQ_FAKE_CTLD_H
#define SHAREQ_FAKE_CTLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct job_record;

/* Controls. */
void fake_ctld_set_conf(const char* text); /* parses it (must be good); a new version */
void fake_ctld_set_state_dir(const char* dir);
const char* fake_ctld_log(void); /* every line logged since the last clear, '\n'-separated */
void fake_ctld_log_clear(void);
extern int fake_ctld_gpu_pos; /* what gpu_tres_pos() returns */
/* The reserved pools last published (set_reserved_pools). */
size_t fake_ctld_reserved_count(void);
uint64_t fake_ctld_reserved_gpus(size_t i);
size_t fake_ctld_reserved_nodes(size_t i);

/* warm_pools.hpp, callable from C. */
void warm_test_job_started(struct job_record* job, int64_t now);
void warm_test_job_ended(struct job_record* job, int64_t now);
void warm_test_periodic(int64_t now);
bool warm_test_pools_waiting(void);
/* Waits until the state files queued for writing are written (state_writer.hpp). */
void warm_test_flush_state(void);
void warm_test_unload(void);
bool warm_test_reserved_claim(struct job_record* job, int64_t now);
/* The advice for `job` among `candidates`: the pool to claim (0: none), and the preferred,
 * avoided and forbidden nodes, each a comma-separated list written into a buffer of `size`. */
uint64_t warm_test_advice(struct job_record* job, const char* const* candidates, size_t count,
                          int64_t now, char* prefer, char* avoid, char* forbid, size_t size);

#ifdef __cplusplus
}
#endif

#endif
