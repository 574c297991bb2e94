// failed_runs never crashes on any AdminComment; each failed run it decodes formats to a word
// that decodes back to the same run, and failure_before finds a run by its requeue number.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "policy/failed_runs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace policy = shareq::policy;
  const std::string_view comment(reinterpret_cast<const char*>(data), size);
  const auto runs = policy::failed_runs(comment);
  for (size_t i = 0; i < runs.size(); ++i) {
    const policy::FailedRun& run = runs[i];
    if (run.requeue < 0) std::abort();
    const auto again = policy::failed_runs(policy::failed_run_word(run));
    if (again.size() != 1 || !(again.front() == run)) std::abort();
    // failure_before decodes the whole comment: asked of the first runs and the last only, so
    // that an input of many runs costs linear time, not quadratic (fuzzing rate).
    if (i < 4 || i + 1 == runs.size()) {
      if (!policy::failure_before(comment, run.requeue)) std::abort();
    }
  }
  (void)policy::preempted_in_run(comment, 0);
  return 0;
}
