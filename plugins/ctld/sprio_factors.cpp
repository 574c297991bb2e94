#include "sprio_factors.h"

#include "ctld_api.hpp"
#include "policy/ordering.hpp"

extern "C" SHAREQ_CTLD_API void shareq_fill_priority_factors(const shareq_priority_parts_t* parts,
                                                             priority_factors_t* out) {
  using shareq::policy::kShareRankWeight;
  out->priority_age = 0;
  out->priority_assoc = 0;
  out->priority_fs = 0;
  out->priority_js = 0;
  out->priority_part = 0;
  out->priority_qos = 0;
#if !SHAREQ_SLURM_PRIORITY_FACTORS_SPLIT
  out->direct_prio = 0;
#endif
  out->priority_tres = nullptr;
  out->tres_cnt = 0;
  out->tres_names = nullptr;
  out->tres_weights = nullptr;
  out->nice = NICE_OFFSET;
  if (!parts->governed) {
    out->priority_site = NICE_OFFSET + SHAREQ_OUTSIDE_PRIORITY;
    return;
  }
  const uint64_t rank_part = uint64_t{parts->share_rank} * kShareRankWeight;
  const uint64_t known = uint64_t{parts->tier} + rank_part + parts->job_priority;
  // The remainder (the core's "+1", so that no priority is 0) goes to SITE with the tier.
  const uint64_t rest = parts->priority > known ? parts->priority - known : 0;
  out->priority_site = static_cast<uint32_t>(NICE_OFFSET + parts->tier + rest);
  out->priority_fs = static_cast<double>(rank_part);
  out->priority_assoc = parts->job_priority;
}
