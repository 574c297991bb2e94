/*
 * burst_submit: submits many batch jobs from one process through libslurm's
 * slurm_submit_batch_job, for bench/cluster/burst.py. It stands for `sbatch` without the start of
 * one process per job (sbatch reaches 11-20 submissions/s on the 2-core test machine, too few for
 * a burst of 20,000 jobs in about two minutes): each job reaches slurmctld as sbatch's would, as
 * the user who runs this program, through job_submit/shareq. With -s (shareq mode) each job
 * carries in its spank_job_env exactly what `sbatch --share=SHARE --share-priority=PRIORITY`
 * puts there: SHAREQ_SHARE and SHAREQ_SHARE_PRIORITY (set by the SPANK client plugin) and
 * _SLURM_SPANK_OPTION_shareq_share and _SLURM_SPANK_OPTION_shareq_share_priority (added by Slurm
 * for the options); without -s the job names the share as its account (`sbatch -A SHARE`).
 * Unlike sbatch it never retries a refused submission: the refusal is the figure.
 *
 * Usage: burst_submit [-s]
 *   One job per line on stdin: PARTITION EXCLUSIVE GPUS SECONDS SHARE PRIORITY (EXCLUSIVE 1:
 *   `--exclusive`; GPUS > 0: `--gres=gpu:GPUS`; the job runs `sleep SECONDS`).
 * Prints one line per job, in order: "accepted JOB_ID SECONDS" or "refused SECONDS MESSAGE"
 * (MESSAGE is libslurm's, e.g. for MaxJobCount), SECONDS being how long the call took.
 * Exits 0 when every line was submitted or refused, 2 on a malformed line.
 */
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_api_compat.h"

/* --gres=gpu:N as sbatch hands it to slurmctld (gres_prepend_tres_type). */
#if SHAREQ_SLURM_AT_LEAST(23, 2)
#define GPU_TRES_FORMAT "gres/gpu:%u"
#else
#define GPU_TRES_FORMAT "gres:gpu:%u"
#endif

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  int shareq_mode = 0;
  int opt;
  char line[512];
  char cwd[4096];
  unsigned long line_no = 0;

  while ((opt = getopt(argc, argv, "s")) != -1) {
    if (opt == 's') {
      shareq_mode = 1;
    } else {
      fprintf(
          stderr,
          "usage: burst_submit [-s] < jobs (PARTITION EXCLUSIVE GPUS SECONDS SHARE PRIORITY)\n");
      return 2;
    }
  }
  if (!getcwd(cwd, sizeof(cwd))) {
    perror("burst_submit: getcwd");
    return 1;
  }
  slurm_init(NULL);
  while (fgets(line, sizeof(line), stdin)) {
    char partition[64];
    char share[64];
    char script[128];
    char tres[64];
    char env_share[96];
    char env_prio[64];
    char opt_share[128];
    char opt_prio[128];
    char* spank_env[4];
    unsigned exclusive = 0;
    unsigned gpus = 0;
    unsigned seconds = 0;
    unsigned priority = 0;
    job_desc_msg_t desc;
    submit_response_msg_t* resp = NULL;
    double start;
    int rc;

    ++line_no;
    if (sscanf(line, "%63s %u %u %u %63s %u", partition, &exclusive, &gpus, &seconds, share,
               &priority) != 6) {
      fprintf(stderr,
              "burst_submit: line %lu: expected PARTITION EXCLUSIVE GPUS SECONDS SHARE PRIORITY, "
              "got: %s",
              line_no, line);
      return 2;
    }
    slurm_init_job_desc_msg(&desc);
    snprintf(script, sizeof(script), "#!/bin/sh\nsleep %u\n", seconds);
    desc.name = "burst";
    desc.script = script;
    desc.partition = partition;
    desc.min_nodes = 1;
    desc.num_tasks = 1;
    desc.work_dir = cwd;
    desc.std_out = "/dev/null";
    desc.user_id = getuid();
    desc.group_id = getgid();
    desc.environment = (char*[]){"PATH=/usr/bin:/bin", NULL};
    desc.env_size = 1;
    if (exclusive) desc.shared = JOB_SHARED_NONE; /* --exclusive */
    if (gpus > 0) {
      snprintf(tres, sizeof(tres), GPU_TRES_FORMAT, gpus);
      desc.tres_per_node = tres;
    }
    if (shareq_mode) {
      snprintf(env_share, sizeof(env_share), "SHAREQ_SHARE=%s", share);
      snprintf(env_prio, sizeof(env_prio), "SHAREQ_SHARE_PRIORITY=%u", priority);
      snprintf(opt_share, sizeof(opt_share), "_SLURM_SPANK_OPTION_shareq_share=%s", share);
      snprintf(opt_prio, sizeof(opt_prio), "_SLURM_SPANK_OPTION_shareq_share_priority=%u",
               priority);
      spank_env[0] = env_share;
      spank_env[1] = env_prio;
      spank_env[2] = opt_share;
      spank_env[3] = opt_prio;
      desc.spank_job_env = spank_env;
      desc.spank_job_env_size = 4;
    } else {
      desc.account = share;
    }
    start = now_s();
    rc = slurm_submit_batch_job(&desc, &resp);
    if (rc == SLURM_SUCCESS) {
      printf("accepted %u %.6f\n", SHAREQ_SUBMIT_RESPONSE_JOB_ID(resp), now_s() - start);
      slurm_free_submit_response_response_msg(resp);
    } else {
      const int err = errno;
      printf("refused %.6f %s\n", now_s() - start, slurm_strerror(err));
    }
    fflush(stdout);
  }
  slurm_fini();
  return 0;
}
