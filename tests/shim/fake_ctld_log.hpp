// The lines a shim test's controller code logged through shareq::ctld's log functions, which
// fake_ctld_log.cpp defines for the tests that link plugins/ctld sources without Slurm's logging.
#pragma once

#include <string>

// Every line logged so far, each ending in a newline; the test reads and clears it.
std::string& fake_ctld_lines();
