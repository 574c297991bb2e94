#include "node_library.hpp"

#include <dlfcn.h>

#include <new>

namespace shareq::spank_plugin {
namespace {

std::string dl_error() {
  const char* e = ::dlerror();
  return e != nullptr ? e : "unknown error";
}

// The consequence, said once for every way loading fails.
std::string cannot_load(const std::string& path, const std::string& why) {
  return "cannot load the node library " + path + " (" + why +
         "); jobs with an image or a warm directory fail on this node until it is reinstalled";
}

}  // namespace

std::string node_library_path() {
  // dladdr on a function of this object names the file the dynamic loader opened it from: the
  // path in plugstack.conf. Never an environment variable: this runs as root.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&node_library_path), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  if (slash == std::string::npos) return {};
  return self.substr(0, slash + 1) + SHAREQ_NODE_LIBRARY;
}

NodeLibrary load_node_library(const std::string& path) {
  NodeLibrary out;
  if (path.empty() || path.front() != '/') {
    // A relative path is relative to the working directory of the dlopen(), long changed.
    out.error = cannot_load(path.empty() ? SHAREQ_NODE_LIBRARY : path,
                            "spank_shareq.so was not loaded by an absolute path (plugstack.conf), "
                            "so its directory is unknown");
    return out;
  }
  // RTLD_LOCAL: its (hidden anyway) symbols never interpose on Slurm's or the plugin's.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    out.error = cannot_load(path, dl_error());
    return out;
  }
  auto entry = reinterpret_cast<shareq_node_api_fn>(::dlsym(handle, SHAREQ_NODE_API_SYMBOL));
  if (entry == nullptr) {
    out.error = cannot_load(path, "it has no " SHAREQ_NODE_API_SYMBOL ": " + dl_error());
  } else if ((out.api = entry(SHAREQ_NODE_ABI_VERSION)) == nullptr) {
    out.error = cannot_load(path, "it is from another version of shareq (ABI " +
                                      std::to_string(SHAREQ_NODE_ABI_VERSION) + " wanted)");
  }
  if (out.api == nullptr) ::dlclose(handle);
  return out;
}

const NodeLibrary& node_library() {
  static const NodeLibrary loaded = [] {
    try {
      return load_node_library(node_library_path());
    } catch (const std::bad_alloc&) {
      return NodeLibrary{nullptr, "out of memory"};
    }
  }();
  return loaded;
}

}  // namespace shareq::spank_plugin
