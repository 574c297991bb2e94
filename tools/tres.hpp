// Slurm's TRES strings ("cpu=2,mem=8G,node=1,billing=2,gres/gpu=8").
#pragma once

#include <cstdint>
#include <string_view>

namespace shareq::tool {

// The count of `name` ("node", "gres/gpu") in `tres`; 0 when absent or not a plain number.
int64_t tres_count(std::string_view tres, std::string_view name);

}  // namespace shareq::tool
