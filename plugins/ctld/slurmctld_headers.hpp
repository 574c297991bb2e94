// Slurm's controller headers for shareq's controller code, WITHOUT slurm_xlator.h (its
// `#define error slurm_error` would rename Result::error(); log through log.hpp instead).
//
// Select and priority plugins are also loaded outside slurmctld (slurmd, sbatch, srun, sshare),
// with RTLD_LAZY: calls to slurmctld-only functions bind on first use, but DATA symbols must
// resolve at load time. Every slurmctld-only variable shareq reads is therefore declared weak
// here: it is 0/NULL outside slurmctld, where shareq's controller code never runs.
#pragma once

extern "C" {
#include "slurm_compat.h"
#include "src/slurmctld/slurmctld.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/agent.h"  // mail_job_info
}

#pragma weak job_list
#pragma weak slurmctld_tres_cnt
#pragma weak last_job_update
#pragma weak acct_db_conn
#pragma weak last_node_update
#pragma weak last_part_update
#pragma weak node_record_count
#pragma weak node_record_table_ptr
