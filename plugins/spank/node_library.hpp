// Finding and loading shareq_node.so (node_api.h) from the directory that holds this plugin.
// Only the node-side contexts call this (slurmstepd, the job prolog and epilog), so sbatch,
// salloc and srun never load libcurl and its dependencies.
#pragma once

#include <string>

#include "node_api.h"

namespace shareq::spank_plugin {

struct NodeLibrary {
  const shareq_node_api_t* api = nullptr;  // null when it could not be loaded
  std::string error;                       // why not: names the file and the cause
};

// Loads the library on the first call in this process and returns the same answer after (a
// forked task inherits its parent's). Thread-safe; never throws.
const NodeLibrary& node_library();

// Loads `path` (a test seam; node_library() passes the file beside this plugin). The handle is
// never closed: Slurm may call back into the plugin until the process exits.
NodeLibrary load_node_library(const std::string& path);

// The file beside the shared object that contains this code, or "" when that is unknown.
std::string node_library_path();

}  // namespace shareq::spank_plugin
