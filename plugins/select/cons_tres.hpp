// The wrapped plugin: Debian's select/cons_tres, opened with dlopen() and called through an
// operations table with every entry point of this release's select interface (select_ops.h).
#pragma once

#include <string>

#include "select_ops.h"

namespace shareq::select {

class ConsTres {
 public:
  // Opens `path` and resolves every select_p_* entry point this release's Slurm looks up.
  // If the library is already loaded (Slurm loads every select_*.so in PluginDir, and dlopen then
  // returns the same instance), its init() has already run and is not called again; otherwise
  // load() calls it and unload() calls its fini(). Returns SLURM_SUCCESS, or SLURM_ERROR with
  // error() logged.
  int load(const std::string& path);
  // Calls fini() when load() called init(), then drops our reference. Safe to call twice.
  int unload();

  [[nodiscard]] bool loaded() const { return handle_ != nullptr; }
  // Precondition: loaded().
  [[nodiscard]] const SelectOps& ops() const { return ops_; }

 private:
  void* handle_ = nullptr;
  bool we_initialised_ = false;
  int (*fini_)() = nullptr;
  SelectOps ops_{};
};

// The one instance the plugin forwards to.
ConsTres& cons_tres();

}  // namespace shareq::select
