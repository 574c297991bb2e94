// The client side of spank_shareq (srun = local context, sbatch/salloc = allocator context):
// the option table, the option callback and forwarding the flags to slurmctld.
#pragma once

#include "spank_api.hpp"

namespace shareq::spank_plugin {

// Registers --share, --share-priority, --image, --keep-alive (once per process; later calls do
// nothing). Returns ESPANK_SUCCESS or Slurm's error.
int register_options(spank_t sp);

// Resolves, checks and forwards the flags (see shareq_flags_forward). 0 or -1.
int forward_flags(spank_t sp);

// Forgets the command-line values.
void clear_flags();

}  // namespace shareq::spank_plugin
