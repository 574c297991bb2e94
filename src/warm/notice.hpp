// The warm-pool notice: the words a job's owner gets by mail when the job leaves its nodes warm
// (Slurm's MailProg, for jobs with --mail-type including END), so that they can submit a matching
// job before the pool expires. Pure: the shim passes the time and the local UTC offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "warm/pool.hpp"

namespace shareq::warm {

// `at` as local ISO 8601 time with its UTC offset, e.g. "2026-12-01T10:15:00+01:00", where
// `utc_offset_s` is the local zone's offset at `at` (east of UTC positive).
std::string iso_time_with_offset(Time at, int64_t utc_offset_s);

// One line naming the pool, its nodes and partition, its expiry (absolute, with offset, and in
// seconds from `now`) and what a job must share with `job` to reuse it (the pool's match key:
// user, share, image, partition, node count, as WarmPoolMatch names them), e.g.
//   shareq: job 42 left its nodes warm as wp-3: p4n1,p4n2 (partition p4) until
//   2026-12-01T10:15:00+01:00 (in 900 s); a job reuses them when it has the same user alice,
//   share prodexp1, image llama-train (sha256:0a1b2c3d4e5f), partition p4, node count 2
// `image_name` is the job's --image as given ("" when none or unknown; the digest is shown).
std::string pool_notice(const WarmPool& pool, JobId job, std::string_view image_name, Time now,
                        int64_t utc_offset_s);

}  // namespace shareq::warm
