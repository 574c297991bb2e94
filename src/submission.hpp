// A job's submission flags checked as a whole against shareq.conf: what job_submit/shareq (the
// authority) accepts, and the parameters it keeps for the job. Each flag's value parser is in
// flags.hpp; the accepted parameters' encoding on the job record (the job tag) in job_tag.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "flags.hpp"
#include "result.hpp"

namespace shareq {

// The flags as the user gave them (command line, else SHAREQ_* environment); nullopt = absent.
struct SubmitFlags {
  std::optional<std::string> share;
  std::optional<std::string> share_priority;
  std::optional<std::string> image;
  std::optional<std::string> keep_alive;
  std::optional<std::string> fallback = std::nullopt;  // --fallback=yes|no
};

// What slurmctld knows of the job besides the flags.
struct JobContext {
  std::string account;                  // the job's account ("" when none was given)
  std::vector<std::string> partitions;  // the job's partitions, default partition resolved
  // The accounts above `account` in Slurm's association tree, nearest first (root left out).
  std::vector<std::string> parent_accounts = {};
};

// The job's shareq parameters once accepted.
struct Submission {
  std::string share;  // lower-case; "" when no partition of the job is in a family
  int priority = 0;
  std::optional<ImageRef> image;
  int64_t keep_alive_s = 0;
  // The family the job was submitted to, when job_submit/shareq added its Fallback= families'
  // partitions (fallback_partitions); "" when the job has no fallback.
  std::string home = {};
  bool operator==(const Submission&) const = default;
};

// Validates a job at submission. Rules:
// - each flag parses as in flags.hpp; keep-alive is at most config.max_keep_alive_s;
// - the share is --share, else the nearest of the job's account and the accounts above it that
//   is a share (a sub-account's jobs belong to its parent's share); when none is, the implicit
//   kUnlistedShare under UnlistedAccounts=borrow, else an error;
// - for every partition of the job that belongs to a family, the share must have a Share= line
//   for that family (kUnlistedShare has one everywhere);
// - a job none of whose partitions is in a family gets share "" (shareq does not govern it) and
//   --share is then refused, since it would mean nothing;
// - priority defaults to config.default_priority.
// The error's field is the flag at fault (kShareFlag for an unknown share or partition mismatch).
Result<Submission> validate_submission(const Config& config, const SubmitFlags& flags,
                                       const JobContext& job);

// Validates an update that keeps the job's partitions (`scontrol update JobId=N Account=X`) of a
// job whose tag names `home`, its home family: the job's partitions then include those
// job_submit/shareq appended for the home family's Fallback= families. They are left out of the
// check (the new share must have a Share= line in each family the user asked for, as at
// submission), and the job keeps its home family: its partitions stay as they are, in a fallback
// family where the new share has no Share= line it cannot start. With `home` empty or no family
// of that name, the same as validate_submission.
Result<Submission> validate_update(const Config& config, const SubmitFlags& flags,
                                   const JobContext& job, const std::string& home);

// The partitions job_submit/shareq appends to an accepted job so that it may fall back: when
// every governed partition of the job is in one family with Fallback= families and the job did
// not ask --fallback=no, the partitions of each fallback family in which the share has a Share=
// line (the unlisted accounts' share: every one), in Fallback= order, that the job does not list
// already. Empty otherwise (a job that lists partitions of several families chose them itself).
std::vector<std::string> fallback_partitions(const Config& config, const std::string& share,
                                             const JobContext& job, bool fallback_wanted);

}  // namespace shareq
