#include "cons_tres.hpp"

#include <dlfcn.h>

#include <type_traits>

namespace shareq::select {
namespace {

// Resolves one entry point into its typed member of SelectOps.
template <auto Member>
bool bind(void* handle, const char* symbol, SelectOps& ops) {
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

// Every symbol of this release's node_select_syms[] (select_ops.h).
bool bind_all(void* h, SelectOps& o) {
// One "&& bind(...)" per table entry, appended to the chain below.
// NOLINTNEXTLINE(bugprone-macro-parentheses): a chain link, not an expression of its own
#define SHAREQ_BIND(member, symbol, ret, params, args) &&bind<&SelectOps::member>(h, #symbol, o)
  return bind<&SelectOps::plugin_id>(h, "plugin_id", o) &&
         bind<&SelectOps::job_test>(h, "select_p_job_test", o) SHAREQ_SELECT_OPS(SHAREQ_BIND);
#undef SHAREQ_BIND
}

#if SHAREQ_SLURM_SERIES(22, 5)
// 22.05's select.h has Slurm's own table: shareq's must match it member for member.
#define SHAREQ_SAME_AS_SLURM(member, symbol, ret, params, args)                                    \
  static_assert(std::is_same_v<decltype(SelectOps::member), decltype(slurm_select_ops_t::member)>, \
                "select_ops.h: " #symbol " differs from Slurm's slurm_select_ops_t");
SHAREQ_SELECT_OPS(SHAREQ_SAME_AS_SLURM)
SHAREQ_SAME_AS_SLURM(job_test, select_p_job_test, , , )
SHAREQ_SAME_AS_SLURM(plugin_id, plugin_id, , , )
#undef SHAREQ_SAME_AS_SLURM
#else
// Later releases keep their table in select.c; where Slurm's select_g_* wrapper takes exactly the
// plugin's parameters (select.h), shareq's member must have that type.
#define SHAREQ_SAME_AS_WRAPPER(member, wrapper)                                  \
  static_assert(std::is_same_v<decltype(SelectOps::member), decltype(&wrapper)>, \
                "select_ops.h: " #member " differs from Slurm's " #wrapper "()");
SHAREQ_SAME_AS_WRAPPER(job_test, select_g_job_test)
SHAREQ_SAME_AS_WRAPPER(state_save, select_g_state_save)
SHAREQ_SAME_AS_WRAPPER(state_restore, select_g_state_restore)
SHAREQ_SAME_AS_WRAPPER(job_init, select_g_job_init)
SHAREQ_SAME_AS_WRAPPER(node_init, select_g_node_init)
SHAREQ_SAME_AS_WRAPPER(job_begin, select_g_job_begin)
SHAREQ_SAME_AS_WRAPPER(job_ready, select_g_job_ready)
SHAREQ_SAME_AS_WRAPPER(job_expand, select_g_job_expand)
SHAREQ_SAME_AS_WRAPPER(job_resized, select_g_job_resized)
SHAREQ_SAME_AS_WRAPPER(job_fini, select_g_job_fini)
SHAREQ_SAME_AS_WRAPPER(job_suspend, select_g_job_suspend)
SHAREQ_SAME_AS_WRAPPER(job_resume, select_g_job_resume)
SHAREQ_SAME_AS_WRAPPER(step_start, select_g_step_start)
SHAREQ_SAME_AS_WRAPPER(step_finish, select_g_step_finish)
SHAREQ_SAME_AS_WRAPPER(nodeinfo_set_all, select_g_select_nodeinfo_set_all)
SHAREQ_SAME_AS_WRAPPER(nodeinfo_set, select_g_select_nodeinfo_set)
SHAREQ_SAME_AS_WRAPPER(get_info_from_plugin, select_g_get_info_from_plugin)
SHAREQ_SAME_AS_WRAPPER(reconfigure, select_g_reconfigure)
#undef SHAREQ_SAME_AS_WRAPPER
#endif

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
  SelectOps ops{};
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
