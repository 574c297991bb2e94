// Slurm's internal select-plugin headers, for C++. slurm_xlator.h maps log and helper names
// to libslurmfull's slurm_* symbols (a bare `error` would bind to glibc's error(3)); slurmctld.h
// comes next (the others are not self-contained).
#pragma once

extern "C" {
#include "src/common/slurm_xlator.h"  // first: it renames what the others declare
#include "slurm_compat.h"
#include "src/slurmctld/slurmctld.h"
#include "src/common/log.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xstring.h"
#if __has_include("src/interfaces/select.h")
#include "src/interfaces/select.h"  // 23.02+
#else
#include "src/common/select.h"
#endif
}
