// Slurm 22.05's internal controller headers, for C++. slurm_xlator.h maps log and helper names to
// libslurmfull's slurm_* symbols (a bare `error` would bind to glibc's error(3)); slurmctld.h
// comes next (the others are not self-contained).
#pragma once

extern "C" {
#include "config.h"
#include "src/common/slurm_xlator.h"
#include "src/slurmctld/slurmctld.h"
#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
}
