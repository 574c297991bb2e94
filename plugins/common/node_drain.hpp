// Draining a node through slurmctld with a reason, over libslurm's public API: the SPANK job
// prolog's hardware check and `shareq node-check --drain` ask the same thing.
#pragma once

#include <slurm/slurm.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace shareq {

// Asks slurmctld to drain `node` (a node list) with `reason`; 0 when it did, else libslurm's
// errno (slurm_strerror names it). Needs root or SlurmUser.
inline int request_node_drain(const std::string& node, const std::string& reason) {
  update_node_msg_t update;
  slurm_init_update_node_msg(&update);
  std::string names = node;
  std::string text = reason;
  update.node_names = names.data();
  update.node_state = NODE_STATE_DRAIN;
  update.reason = text.data();
  update.reason_uid = ::getuid();
  return slurm_update_node(&update) == SLURM_SUCCESS ? 0 : errno;
}

}  // namespace shareq
