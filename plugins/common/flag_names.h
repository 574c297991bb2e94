/*
 * How shareq's submission flags travel from the client (spank_shareq.so) to slurmctld
 * (job_submit/shareq), in plain C so that the CMocka tests share it.
 *
 * The SPANK plugin resolves each flag (command line, else the SHAREQ_* environment variable) and
 * forwards it with spank_job_control_setenv() as SHAREQ_<NAME>=VALUE into the job's
 * spank_job_env (sbatch, salloc and srun all copy it into job_desc->spank_job_env). Slurm itself
 * also adds _SLURM_SPANK_OPTION_shareq_<option>=VALUE there for each option given on the command
 * line; job_submit/shareq reads SHAREQ_<NAME> first and falls back to that. After validation,
 * job_submit/shareq stores the canonical values back under SHAREQ_<NAME>.
 */
#ifndef SHAREQ_FLAG_NAMES_H
#define SHAREQ_FLAG_NAMES_H

enum shareq_flag {
  SHAREQ_FLAG_SHARE,
  SHAREQ_FLAG_PRIORITY,
  SHAREQ_FLAG_IMAGE,
  SHAREQ_FLAG_KEEP_ALIVE,
  SHAREQ_FLAG_FALLBACK,
  SHAREQ_FLAG_COUNT
};

struct shareq_flag_name {
  const char* option;    /* the long option, without "--" */
  const char* env;       /* user's environment fallback and spank_job_env name */
  const char* slurm_env; /* what Slurm adds to spank_job_env for the option */
};

/* The SPANK plugin's name (plugin_name), part of Slurm's _SLURM_SPANK_OPTION_ names. */
#define SHAREQ_SPANK_PLUGIN_NAME "shareq"

static const struct shareq_flag_name shareq_flag_names[SHAREQ_FLAG_COUNT] = {
    {"share", "SHAREQ_SHARE", "_SLURM_SPANK_OPTION_shareq_share"},
    {"share-priority", "SHAREQ_SHARE_PRIORITY", "_SLURM_SPANK_OPTION_shareq_share_priority"},
    {"image", "SHAREQ_IMAGE", "_SLURM_SPANK_OPTION_shareq_image"},
    {"keep-alive", "SHAREQ_KEEP_ALIVE", "_SLURM_SPANK_OPTION_shareq_keep_alive"},
    {"fallback", "SHAREQ_FALLBACK", "_SLURM_SPANK_OPTION_shareq_fallback"},
};

#endif /* SHAREQ_FLAG_NAMES_H */
