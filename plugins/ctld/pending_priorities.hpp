// The highest --share-priority among each share's pending jobs: what in-share preemption could
// bring against the running jobs. preempt/shareq answers Slurm's "can anything be preempted?"
// from it and the running snapshot (policy::any_preemptable).
//
// priority/shareq publishes it from every pass and re-ranking (every pending job it governs,
// held ones included) and raises it at every priority_p_set (submission, release, update), all
// with the job write lock held. Jobs that become pending another way (a requeue, a slurmctld
// restart) are counted at the next re-ranking, which every requeue triggers (its allocation
// ends, slurm_jobs.hpp): until then preempt/shareq may answer "nothing to preempt" for their
// share, which can delay an in-share preemption by a scheduling pass, never cause one.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ctld_api.hpp"
#include "policy/policy.hpp"

namespace shareq::ctld {

// [share id of the configuration `config_version`]: the highest priority among its pending jobs,
// below 0 for none. Replaces what was published.
SHAREQ_CTLD_API void publish_pending_priorities(uint64_t config_version, std::vector<int> highest);

// A job of `share` is pending at `priority`: raises the share's entry (when published for this
// configuration).
SHAREQ_CTLD_API void pending_priority_seen(uint64_t config_version, policy::ShareId share,
                                           int priority);

// What was published for configuration `config_version`; nullptr when nothing was (yet), e.g.
// just after a start or a reconfigure: then every share may have a pending job at any priority.
SHAREQ_CTLD_API std::shared_ptr<const std::vector<int>> pending_priorities(uint64_t config_version);

}  // namespace shareq::ctld
