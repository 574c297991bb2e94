// A SPANK plugin for bench/cluster/start_latency.py only (never installed on a real cluster).
// The benchmark lists it in plugstack.conf before spank_shareq.so, so that Slurm, which calls
// the SPANK plugins of a stack in the order they are listed, runs its job prolog first, as soon
// as the node has started the job's prolog (PrologFlags=Alloc: at allocation, before the image
// is fetched and before slurm.conf's Prolog= script, which slurmd runs after the SPANK prolog).
// It writes that moment (CLOCK_REALTIME, seconds.nanoseconds) to DIR/JOBID.NODE, DIR being its
// one argument `dir=DIR`. It never fails the prolog: a missing stamp is the benchmark's error.
//
// Built by the benchmark: cc -shared -fPIC -o spank_prolog_stamp.so spank_prolog_stamp.c
#include <fcntl.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

SPANK_PLUGIN(shareq_bench_stamp, 1);

int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);  // first: everything after it is set-up time
  const char* dir = NULL;
  for (int i = 0; i < ac; i++) {
    if (strncmp(av[i], "dir=", 4) == 0) dir = av[i] + 4;
  }
  uint32_t job_id = 0;
  const char* node = getenv("SLURMD_NODENAME");
  if (dir == NULL || node == NULL || spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) {
    slurm_error("shareq-bench-stamp: no dir= argument, node name or job id; no stamp written");
    return 0;
  }
  char path[4096];
  char text[64];
  snprintf(path, sizeof path, "%s/%u.%s", dir, job_id, node);
  const int len = snprintf(text, sizeof text, "%lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 || write(fd, text, (size_t)len) != len) {
    slurm_error("shareq-bench-stamp: cannot write %s", path);
  }
  if (fd >= 0) close(fd);
  return 0;
}
