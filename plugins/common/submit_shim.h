/*
 * The plugins' translation layer between Slurm's job fields and the policy core (job_submit/shareq
 * writes a job with it, libshareq_ctld reads the environment and shareq.conf's handle), with a C
 * interface so that it can be tested with CMocka against fake Slurm allocators. It uses Slurm's
 * xmalloc family (slurm_xstrdup, slurm_xrecalloc, slurm_xfree) for everything it stores in a job,
 * since Slurm frees those fields.
 */
#ifndef SHAREQ_SUBMIT_SHIM_H
#define SHAREQ_SUBMIT_SHIM_H

/* NOLINTBEGIN(modernize-deprecated-headers,modernize-use-using): a C header. */
#include <stdbool.h>
#include <stdint.h>

#include "flag_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed shareq.conf (opaque). */
typedef struct shareq_conf shareq_conf_t;

/*
 * Parses shareq.conf text; `file` only labels messages. Returns the config, or NULL and sets
 * *errors (when errors is not NULL) to an xmalloc'd string with one "FILE:LINE: KEY: MESSAGE"
 * per line.
 */
shareq_conf_t* shareq_conf_parse(const char* text, const char* file, char** errors);
void shareq_conf_free(shareq_conf_t* conf);

/* The value of NAME in an array of `size` "NAME=VALUE" strings (NULL entries skipped); NULL when
 * absent. */
const char* shareq_env_get(char* const* env, uint32_t size, const char* name);
/* Sets NAME=VALUE, replacing an existing NAME; grows the xmalloc'd array (kept NULL-terminated). */
void shareq_env_set(char*** env, uint32_t* size, const char* name, const char* value);
/* Removes every NAME entry. */
void shareq_env_unset(char*** env, uint32_t* size, const char* name);
/* A flag as forwarded: SHAREQ_<NAME>, else Slurm's _SLURM_SPANK_OPTION_shareq_<option>. */
const char* shareq_env_flag(char* const* env, uint32_t size, enum shareq_flag flag);

/* Pointers to the job fields shareq reads and rewrites: a job_desc_msg_t's at submission, a
 * job_record_t's on modification. All strings are xmalloc'd and may be NULL. */
typedef struct shareq_job_fields {
  char** account;
  char** admin_comment;
  char*** spank_env;
  uint32_t* spank_env_size;
  char** partition; /* the request's partition list (NULL: not rewritten); the fallback
                       families' partitions are appended to it (fallback_partitions()) */
} shareq_job_fields_t;

/* What is being admitted. */
typedef struct shareq_admission {
  const char* account;           /* the job's account (submit: given or the user's default) */
  const char* partitions;        /* comma-separated; NULL or "" = the default partition */
  const char* default_partition; /* slurmctld's default partition; may be NULL */
  bool share_follows_account;    /* modify that changes the account: the new account is the
                                    share, a forwarded --share no longer applies */
  bool set_account;              /* submit: write --share into *account */
  const char* parent_accounts;   /* the accounts above `account`, nearest first, comma-separated;
                                    NULL or "" = none (the account's share may be a parent's) */
} shareq_admission_t;

/*
 * Validates the job's shareq flags (from *fields->spank_env) against `conf` (NULL = shareq.conf
 * never loaded: jobs that name --share are refused, others pass untouched).
 * On success: for a job shareq governs (or that gave any flag), writes the canonical
 * SHAREQ_SHARE, SHAREQ_SHARE_PRIORITY, SHAREQ_IMAGE, SHAREQ_KEEP_ALIVE into the spank env and
 * the encoded submission ("shareq:share=...,priority=...,keep_alive=...") into *admin_comment,
 * and with set_account a --share into *account (a job without --share keeps its account, which
 * may be a sub-account of its share). When the job may fall back, the fallback families'
 * partitions are appended to *partition (the request's list, or the default partition) and the
 * tag names its home family. An update (set_account false) replaces the tag, the AdminComment's
 * first word, and keeps the words after it; one that keeps the partitions (partition NULL) keeps
 * the home family its tag names (shareq::validate_update).
 * On failure: changes nothing, sets *err_msg to an xmalloc'd "shareq: FIELD: MESSAGE".
 * Returns SLURM_SUCCESS, ESLURM_INVALID_ACCOUNT (share problems) or SLURM_ERROR (other flags).
 */
int shareq_admit(const shareq_conf_t* conf, const shareq_admission_t* admission,
                 shareq_job_fields_t* fields, char** err_msg);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-deprecated-headers,modernize-use-using) */
#endif /* SHAREQ_SUBMIT_SHIM_H */
