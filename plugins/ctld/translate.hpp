// The C++ face of translate.h, used by the plugins.
#pragma once

#include <optional>

#include "ctld_api.hpp"
#include "policy/jobs.hpp"
#include "policy/policy.hpp"
#include "translate.h"

namespace shareq::ctld {

SHAREQ_CTLD_API int job_priority(const policy::Policy& policy, char* const* env, uint32_t size);
SHAREQ_CTLD_API std::optional<policy::RunningJob> to_running(const policy::Policy& policy,
                                                             const shareq_job_view_t& job);
SHAREQ_CTLD_API std::optional<policy::PendingJob> to_pending(const policy::Policy& policy,
                                                             const shareq_job_view_t& job);
// The amount `job` asks of family `f` in the family's unit.
SHAREQ_CTLD_API int64_t job_amount(const policy::Policy& policy, policy::FamilyId f,
                                   const shareq_job_view_t& job);

}  // namespace shareq::ctld
