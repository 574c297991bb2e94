// Slurm's internal controller headers, for C++. slurm_xlator.h maps log and helper names to
// libslurmfull's slurm_* symbols (a bare `error` would bind to glibc's error(3)); slurmctld.h
// comes next (the others are not self-contained).
#pragma once

extern "C" {
#include "src/common/slurm_xlator.h"  // first: it renames what the others declare
#include "slurm_compat.h"
#include "src/slurmctld/slurmctld.h"
#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
}
