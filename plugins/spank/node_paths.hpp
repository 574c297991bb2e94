// Where the node side keeps its files (node.hpp has the layout), from shareq.conf's
// ImageCacheDir. Shared by shareq_node.so, which writes and reads them, and spank_shareq.so,
// which only asks whether the prolog left anything for a job (to skip loading shareq_node.so).
#pragma once

#include <cstdint>
#include <string>

#include "config.hpp"

namespace shareq::spank_plugin {

struct NodePaths {
  std::string cache;         // ImageCacheDir for this node
  std::string jobs;          // ROOT/jobs: the prolog's outcome per job
  std::string warm;          // ROOT/warm: the warm directories
  std::string metrics_file;  // ImageCacheMetricsFile for this node; "" = no metrics
};

// ImageCacheDir with "%n" replaced by `node`.
std::string node_cache_dir(const Config& config, const std::string& node);

NodePaths node_paths(const Config& config, const std::string& node);

// ROOT/jobs/ID: what the job's prolog prepared on this node (absent when it prepared nothing).
std::string prepared_file(const NodePaths& paths, uint32_t job_id);

}  // namespace shareq::spank_plugin
