// The C boundary: every function Slurm calls runs its body through guarded(), so no C++
// exception ever unwinds into Slurm's C frames.
#pragma once

#include <exception>
#include <utility>

// Marks a symbol Slurm looks up; everything else is hidden (-fvisibility=hidden) and the linker
// version script of each plugin lists the same names.
#define SHAREQ_EXPORT extern "C" __attribute__((visibility("default")))

namespace shareq::plugin {

// Runs body() and returns its result. If it throws, calls report(what) with the exception's
// message (or "unknown exception") and returns on_error instead.
template <typename R, typename Body, typename Report>
R guarded(R on_error, Body&& body, Report&& report) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (const std::exception& e) {
    report(e.what());
  } catch (...) {
    report("unknown exception");
  }
  return on_error;
}

}  // namespace shareq::plugin
