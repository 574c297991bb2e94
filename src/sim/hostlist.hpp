// Slurm host lists: "n1,n2", "p4n[1-4]", "gpu[01-08,12]", "r[1-2]n[1-3]" (several brackets
// multiply out). Zero-padded ranges keep their width ("[01-10]" -> 01 .. 10).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace shareq::sim {

// Most names one host list may expand to (a guard against "n[1-999999999]").
inline constexpr size_t kMaxHostlistNames = 100'000;

// The names in order, duplicates kept. Errors (Error::field empty; the caller names it):
// unbalanced brackets, an empty name or range, a range whose end is below its start, a
// non-number in a range, more than max_names names.
Result<std::vector<std::string>> expand_hostlist(std::string_view list,
                                                 size_t max_names = kMaxHostlistNames);

}  // namespace shareq::sim
