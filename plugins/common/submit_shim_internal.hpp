// The C++ side of the opaque shareq_conf_t handle of submit_shim.h.
#pragma once

#include "config.hpp"
#include "submit_shim.h"

struct shareq_conf {
  shareq::Config config;
};
