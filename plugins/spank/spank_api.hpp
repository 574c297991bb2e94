// Slurm's public SPANK header, for C++: it declares its callbacks outside its own extern "C".
#pragma once

extern "C" {
#include <slurm/spank.h>
}
