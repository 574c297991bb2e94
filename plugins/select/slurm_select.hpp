// Slurm 22.05's internal select-plugin headers, for C++. slurm_xlator.h maps log and helper names
// to libslurmfull's slurm_* symbols (a bare `error` would bind to glibc's error(3)); slurmctld.h
// comes next (the others are not self-contained).
#pragma once

extern "C" {
#include "config.h"
#include "src/common/slurm_xlator.h"
#include "src/slurmctld/slurmctld.h"
#include "src/common/log.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
}
