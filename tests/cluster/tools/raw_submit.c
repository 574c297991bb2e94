/*
 * raw_submit: submits a batch job through libslurm's public API with no SPANK plugin in the way,
 * so tests can hand slurmctld values that a well-behaved client would refuse. It stands for a
 * user who bypasses the client-side checks; job_submit/shareq must refuse the same values.
 *
 * Usage: raw_submit [-p PARTITION] [-A ACCOUNT] [-N NODES] [-e NAME=VALUE]... [-w SCRIPT_TEXT]
 *   -e adds NAME=VALUE to the job's spank_job_env (what SPANK plugins forward).
 * Prints the job id and exits 0, or exits 1 with libslurm's error on stderr.
 */
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_api_compat.h"
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  job_desc_msg_t desc;
  submit_response_msg_t* resp = NULL;
  char* spank_env[32];
  unsigned spank_count = 0;
  const char* script = "#!/bin/sh\ntrue\n";
  char cwd[4096];
  int opt;

  slurm_init(NULL);
  slurm_init_job_desc_msg(&desc);
  desc.min_nodes = 1;
  while ((opt = getopt(argc, argv, "p:A:N:e:w:")) != -1) {
    switch (opt) {
      case 'p':
        desc.partition = optarg;
        break;
      case 'A':
        desc.account = optarg;
        break;
      case 'N':
        desc.min_nodes = (uint32_t)strtoul(optarg, NULL, 10);
        break;
      case 'e':
        if (spank_count == sizeof(spank_env) / sizeof(spank_env[0])) {
          fprintf(stderr, "raw_submit: too many -e\n");
          return 2;
        }
        spank_env[spank_count++] = optarg;
        break;
      case 'w':
        script = optarg;
        break;
      default:
        fprintf(stderr, "usage: raw_submit [-p P] [-A A] [-N N] [-e NAME=VALUE]... [-w SCRIPT]\n");
        return 2;
    }
  }
  if (!getcwd(cwd, sizeof(cwd))) {
    perror("raw_submit: getcwd");
    return 1;
  }
  desc.name = "raw_submit";
  desc.script = (char*)script;
  desc.work_dir = cwd;
  desc.user_id = getuid();
  desc.group_id = getgid();
  desc.environment = environ;
  desc.env_size = 0;
  while (environ[desc.env_size]) desc.env_size++;
  desc.spank_job_env = spank_env;
  desc.spank_job_env_size = spank_count;

  if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
    fprintf(stderr, "raw_submit: error: %s\n", slurm_strerror(errno));
    return 1;
  }
  printf("%u\n", SHAREQ_SUBMIT_RESPONSE_JOB_ID(resp));
  if (resp->job_submit_user_msg) fprintf(stderr, "raw_submit: %s\n", resp->job_submit_user_msg);
  slurm_free_submit_response_response_msg(resp);
  slurm_fini();
  return 0;
}
