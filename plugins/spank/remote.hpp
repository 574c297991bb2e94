// The node side of spank_shareq in Slurm's terms: job prolog/epilog (job script context) and the
// task hooks (remote context, slurmstepd). Reads Slurm's items and environment and hands them,
// with the path of shareq.conf (beside slurm.conf), to the node library (node_api.h,
// shareq_node.so, loaded on first use), and reports.
#pragma once

#include "spank_api.hpp"

namespace shareq::spank_plugin {

// slurm_spank_init in the remote context (slurmstepd, before it forks the tasks): when the step's
// job has an image or a warm directory, loads the node library once for all the step's tasks,
// logging an error when it cannot. Steps of other jobs never load it: with libcurl and OpenSSL
// it costs each step 2-4 ms (bench/cluster/step_launch.py).
void preload_node_library(spank_t sp);

// slurm_spank_job_prolog: first the hardware check. When the family of the job's partition
// (SLURM_JOB_PARTITION) sets Hardware=, compares this node's topology (hwloc, in shareq_node.so;
// from the hwloc XML file of the plugin argument hwloc_xml=PATH, "%n" the node's name, when
// given) with it; on a mismatch, or a topology or node library that cannot be read (fails
// closed), logs the line, drains the node with it as the reason and returns -1: the prolog
// fails and Slurm requeues the job. Then the image cache and warm directories, which always
// give 0 (a failed prolog drains the node; an image error fails the job's tasks instead).
int job_prolog(spank_t sp, int ac, char** av);
// slurm_spank_job_epilog: always 0.
int job_epilog(spank_t sp);
// slurm_spank_task_init_privileged (root): for a job with an image or a warm directory, sets
// SHAREQ_IMAGE_PATH and SHAREQ_WARM_DIR, or keeps the error for task_init. Always 0.
int task_init_privileged(spank_t sp);
// slurm_spank_task_init (the user, stdio connected): prints the kept error to the task's stderr
// and returns -1, which ends the task with exit code 1; else 0.
int task_init(spank_t sp);

}  // namespace shareq::spank_plugin
