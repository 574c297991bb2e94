// libslurm's job record (slurm_job_info_t: one entry of slurm_load_jobs' answer, as slurmctld's
// pack_job() wrote it) read into the tool's JobInfo: what the tool's side of the one translation
// of a job (policy/job_record.hpp, through job_record_of in cluster_state.hpp) reads of it.
//
// It needs <slurm/slurm.h> but calls nothing of libslurm, so that the shim tests can feed it
// records built by hand (tests/shim/job_sources_test.cpp: the same job through both record
// sources). What needs libslurm or the system (the user's name, the state and reason words, the
// expanded node names) slurm_client.cpp adds.
#pragma once

#include "cluster_data.hpp"

struct job_info;  // <slurm/slurm.h>'s slurm_job_info_t

namespace shareq::tool {

// The job's id, account, partitions (pending: as requested, in order; otherwise the one it runs
// in), state, node and GPU counts as the controller plugins count them (pending: requested,
// at least one node; otherwise allocated, GPUs the larger of allocated and requested), node
// list, comments, Slurm priority and times. user, state_name, reason and node_names stay empty.
JobInfo job_info_of(const job_info& job);

}  // namespace shareq::tool
