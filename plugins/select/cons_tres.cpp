#include "cons_tres.hpp"

#include <dlfcn.h>

#include <type_traits>

namespace shareq::select {
namespace {

// Resolves one entry point into its typed member of slurm_select_ops_t.
template <auto Member>
bool bind(void* handle, const char* symbol, slurm_select_ops_t& ops) {
  using Fn = std::remove_reference_t<decltype(ops.*Member)>;
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    const char* why = dlerror();
    error("shareq: select: cons_tres has no %s: %s", symbol, why ? why : "not found");
    return false;
  }
  ops.*Member = reinterpret_cast<Fn>(address);
  return true;
}

// Every symbol of node_select_syms[] in src/common/select.c (22.05), in its order.
bool bind_all(void* h, slurm_select_ops_t& o) {
  using O = slurm_select_ops_t;
  return bind<&O::plugin_id>(h, "plugin_id", o) &&
         bind<&O::state_save>(h, "select_p_state_save", o) &&
         bind<&O::state_restore>(h, "select_p_state_restore", o) &&
         bind<&O::job_init>(h, "select_p_job_init", o) &&
         bind<&O::node_init>(h, "select_p_node_init", o) &&
         bind<&O::job_test>(h, "select_p_job_test", o) &&
         bind<&O::job_begin>(h, "select_p_job_begin", o) &&
         bind<&O::job_ready>(h, "select_p_job_ready", o) &&
         bind<&O::job_expand>(h, "select_p_job_expand", o) &&
         bind<&O::job_resized>(h, "select_p_job_resized", o) &&
         bind<&O::job_signal>(h, "select_p_job_signal", o) &&
         bind<&O::job_fini>(h, "select_p_job_fini", o) &&
         bind<&O::job_suspend>(h, "select_p_job_suspend", o) &&
         bind<&O::job_resume>(h, "select_p_job_resume", o) &&
         bind<&O::step_pick_nodes>(h, "select_p_step_pick_nodes", o) &&
         bind<&O::step_start>(h, "select_p_step_start", o) &&
         bind<&O::step_finish>(h, "select_p_step_finish", o) &&
         bind<&O::nodeinfo_pack>(h, "select_p_select_nodeinfo_pack", o) &&
         bind<&O::nodeinfo_unpack>(h, "select_p_select_nodeinfo_unpack", o) &&
         bind<&O::nodeinfo_alloc>(h, "select_p_select_nodeinfo_alloc", o) &&
         bind<&O::nodeinfo_free>(h, "select_p_select_nodeinfo_free", o) &&
         bind<&O::nodeinfo_set_all>(h, "select_p_select_nodeinfo_set_all", o) &&
         bind<&O::nodeinfo_set>(h, "select_p_select_nodeinfo_set", o) &&
         bind<&O::nodeinfo_get>(h, "select_p_select_nodeinfo_get", o) &&
         bind<&O::jobinfo_alloc>(h, "select_p_select_jobinfo_alloc", o) &&
         bind<&O::jobinfo_free>(h, "select_p_select_jobinfo_free", o) &&
         bind<&O::jobinfo_set>(h, "select_p_select_jobinfo_set", o) &&
         bind<&O::jobinfo_get>(h, "select_p_select_jobinfo_get", o) &&
         bind<&O::jobinfo_copy>(h, "select_p_select_jobinfo_copy", o) &&
         bind<&O::jobinfo_pack>(h, "select_p_select_jobinfo_pack", o) &&
         bind<&O::jobinfo_unpack>(h, "select_p_select_jobinfo_unpack", o) &&
         bind<&O::jobinfo_sprint>(h, "select_p_select_jobinfo_sprint", o) &&
         bind<&O::jobinfo_xstrdup>(h, "select_p_select_jobinfo_xstrdup", o) &&
         bind<&O::get_info_from_plugin>(h, "select_p_get_info_from_plugin", o) &&
         bind<&O::update_node_config>(h, "select_p_update_node_config", o) &&
         bind<&O::reconfigure>(h, "select_p_reconfigure", o) &&
         bind<&O::resv_test>(h, "select_p_resv_test", o);
}

}  // namespace

int ConsTres::load(const std::string& path) {
  if (handle_ != nullptr) {
    return SLURM_SUCCESS;
  }
  // RTLD_LAZY: cons_tres refers to slurmctld-only symbols that slurmd and clients lack.
  // RTLD_NOLOAD first: did Slurm already load (and init) this very file from PluginDir?
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  const bool already_loaded = handle != nullptr;
  if (!already_loaded) {
    handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    error("shareq: select: cannot open %s: %s", path.c_str(), dlerror());
    return SLURM_ERROR;
  }
  slurm_select_ops_t ops{};
  if (!bind_all(handle, ops)) {
    dlclose(handle);
    return SLURM_ERROR;
  }
  auto* init = reinterpret_cast<int (*)()>(dlsym(handle, "init"));
  auto* fini = reinterpret_cast<int (*)()>(dlsym(handle, "fini"));
  if (!already_loaded && init != nullptr && init() != SLURM_SUCCESS) {
    error("shareq: select: init() of %s failed", path.c_str());
    dlclose(handle);
    return SLURM_ERROR;
  }
  if (already_loaded) {
    debug("shareq: select: %s already loaded by Slurm, init() not repeated", path.c_str());
  }
  handle_ = handle;
  we_initialised_ = !already_loaded;
  fini_ = fini;
  ops_ = ops;
  return SLURM_SUCCESS;
}

int ConsTres::unload() {
  if (handle_ == nullptr) {
    return SLURM_SUCCESS;
  }
  int rc = SLURM_SUCCESS;
  // If Slurm also loaded cons_tres after us, it calls fini() too; cons_tres' fini frees and
  // clears its globals, so a second call is harmless.
  if (we_initialised_ && fini_ != nullptr) {
    rc = fini_();
  }
  dlclose(handle_);
  handle_ = nullptr;
  we_initialised_ = false;
  fini_ = nullptr;
  ops_ = {};
  return rc;
}

ConsTres& cons_tres() {
  static ConsTres instance;
  return instance;
}

}  // namespace shareq::select
