#include "sprio_factors.h"

#include "ctld_api.hpp"
#include "policy/ordering.hpp"

extern "C" SHAREQ_CTLD_API void shareq_fill_priority_factors(const shareq_priority_parts_t* parts,
                                                             priority_factors_t* out) {
  using shareq::policy::kJobPriorityWeight;
  using shareq::policy::kShareRankWeight;
  using shareq::policy::kSizeClassWeight;
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
  const int64_t rank_part = int64_t{parts->share_rank} * kShareRankWeight;
  const int64_t priority_part = int64_t{parts->job_priority} * kJobPriorityWeight;
  const int64_t size_part = int64_t{parts->size_class} * kSizeClassWeight;
  // sprio adds SITE, FAIRSHARE, JOBSIZE and ASSOC and subtracts NICE: SITE is what makes that
  // the priority.
  const int64_t site =
      int64_t{parts->priority} - rank_part - priority_part - size_part + parts->nice;
  out->nice = static_cast<uint32_t>(int64_t{NICE_OFFSET} + parts->nice);
  out->priority_site = static_cast<uint32_t>(int64_t{NICE_OFFSET} + site);
  out->priority_fs = static_cast<double>(rank_part);
  out->priority_js = static_cast<double>(size_part);
  out->priority_assoc = static_cast<double>(priority_part);
}
