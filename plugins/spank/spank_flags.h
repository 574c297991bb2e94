/*
 * The SPANK plugin's client-side flag handling, with a C interface so that it can be tested with
 * CMocka: the environment and the job-control environment are reached through shareq_spank_io_t,
 * which the plugin maps onto getenv() / spank_job_control_setenv() / slurm_error() and a test
 * onto mocks.
 */
#ifndef SHAREQ_SPANK_FLAGS_H
#define SHAREQ_SPANK_FLAGS_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include "flag_names.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shareq_spank_io {
  void* ctx;
  /* The user's environment variable NAME, NULL when unset. */
  const char* (*getenv)(void* ctx, const char* name);
  /* Puts NAME=VALUE into the job's spank_job_env (overwriting); 0 on success. */
  int (*job_setenv)(void* ctx, const char* name, const char* value);
  /* Shows one complete message ("shareq: ...") to the user. */
  void (*error)(void* ctx, const char* message);
} shareq_spank_io_t;

/* The values given on the command line (malloc'd copies; NULL = not given). */
typedef struct shareq_cli_flags {
  char* value[SHAREQ_FLAG_COUNT];
} shareq_cli_flags_t;

/*
 * Checks `value` for `flag` with the core's parsers, client side (syntax only; keep-alive has no
 * upper bound here, slurmctld applies MaxKeepAlive). NULL when valid, else a malloc'd
 * "FIELD: MESSAGE" (free() it).
 */
char* shareq_flag_check(enum shareq_flag flag, const char* value);

/* Records a command-line value; the last one given wins. Returns 0, or -1 after reporting
 * "shareq: FIELD: MESSAGE" through io->error when the value is malformed (not recorded). */
int shareq_cli_set(shareq_cli_flags_t* cli, enum shareq_flag flag, const char* value,
                   const shareq_spank_io_t* io);
void shareq_cli_clear(shareq_cli_flags_t* cli);

/*
 * Resolves each flag: the command line, else the SHAREQ_* environment variable (an empty one
 * counts as unset). Forwards every present value as SHAREQ_*=VALUE with io->job_setenv, the
 * malformed ones included so that slurmctld refuses them too should this plugin be optional.
 * Returns 0, or -1 after reporting each malformed value (and each failed forward) through
 * io->error. Idempotent: calling it again forwards the same values.
 */
int shareq_flags_forward(const shareq_cli_flags_t* cli, const shareq_spank_io_t* io);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_SPANK_FLAGS_H */
