/*
 * The per-release layer for code that uses only Slurm's public API (<slurm/slurm.h>, libslurm):
 * the shareq tool and the cluster tests' helpers. C and C++. The plugins get it through
 * slurm_compat.h, which adds what their internal headers need.
 *
 * Supported series: 22.05 (Debian 12), 24.11 (Debian 13), 26.05 (Debian unstable). Where a change
 * is known only to lie between two supported series, the test is "newer than the older one".
 */
#ifndef SHAREQ_SLURM_API_COMPAT_H
#define SHAREQ_SLURM_API_COMPAT_H

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define SHAREQ_SLURM_AT_LEAST(major, minor) \
  (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM((major), (minor), 0))

#define SHAREQ_SLURM_SERIES(major, minor)                  \
  (SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) == (major) && \
   SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER) == (minor))

#if !(SHAREQ_SLURM_SERIES(22, 5) || SHAREQ_SLURM_SERIES(24, 11) || SHAREQ_SLURM_SERIES(26, 5))
#error "shareq supports Slurm 22.05, 24.11 and 26.05; this is another release"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The name of a job's state_reason (squeue's %r), exported by libslurm but not declared in
 * <slurm/slurm.h>: slurm_job_reason_string in 22.05, slurm_job_state_reason_string (const) in
 * 24.11 (src/common/job_state_reason.h). */
#if SHAREQ_SLURM_SERIES(22, 5)
extern char* slurm_job_reason_string(enum job_state_reason inx);
#define shareq_slurm_job_reason_string slurm_job_reason_string
#else
extern const char* slurm_job_state_reason_string(enum job_state_reason inx);
#define shareq_slurm_job_reason_string slurm_job_state_reason_string
#endif

/* slurm_load_ctl_conf()'s result is freed with slurm_free_ctl_conf() up to 24.11 and with
 * slurm_free_conf() in 26.05. */
#if SHAREQ_SLURM_AT_LEAST(25, 5)
#define shareq_slurm_free_ctl_conf slurm_free_conf
#else
#define shareq_slurm_free_ctl_conf slurm_free_ctl_conf
#endif

/* submit_response_msg_t names the job in step_id.job_id in 26.05 (25.11), in job_id before. */
#if SHAREQ_SLURM_AT_LEAST(25, 5)
#define SHAREQ_SUBMIT_RESPONSE_JOB_ID(resp) ((resp)->step_id.job_id)
#else
#define SHAREQ_SUBMIT_RESPONSE_JOB_ID(resp) ((resp)->job_id)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHAREQ_SLURM_API_COMPAT_H */
