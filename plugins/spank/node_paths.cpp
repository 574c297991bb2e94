#include "node_paths.hpp"

namespace shareq::spank_plugin {
namespace {

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

// `path` with every "%n" replaced by `node`.
std::string with_node_name(std::string path, const std::string& node) {
  for (size_t at = path.find("%n"); at != std::string::npos; at = path.find("%n", at)) {
    path.replace(at, 2, node);
    at += node.size();
  }
  return path;
}

}  // namespace

std::string node_cache_dir(const Config& config, const std::string& node) {
  return with_node_name(config.image_cache_dir, node);
}

NodePaths node_paths(const Config& config, const std::string& node) {
  NodePaths p;
  p.cache = node_cache_dir(config, node);
  while (p.cache.size() > 1 && p.cache.back() == '/') p.cache.pop_back();
  const std::string root = parent_of(p.cache);
  p.jobs = (root == "/" ? "" : root) + "/jobs";
  p.warm = (root == "/" ? "" : root) + "/warm";
  if (!config.image_cache_metrics_file.empty()) {
    p.metrics_file = with_node_name(config.image_cache_metrics_file, node);
  }
  return p;
}

std::string prepared_file(const NodePaths& paths, uint32_t job_id) {
  return paths.jobs + "/" + std::to_string(job_id);
}

}  // namespace shareq::spank_plugin
