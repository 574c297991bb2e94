// libshareq_ctld.so: the one controller view that select, priority, preempt and job_submit share
// inside slurmctld. Everything else in the library is hidden; SHAREQ_CTLD_API marks its API.
#pragma once

#define SHAREQ_CTLD_API __attribute__((visibility("default")))
