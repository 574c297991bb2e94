// The node side of spank_shareq: the image cache and the warm directory, before and after a job.
// Slurm-free (the SPANK dispatch reads Slurm's items and environment and passes them in).
//
// Where it runs (all as root, never inside slurmd itself):
//   job_prolog (slurm_spank_job_prolog, every node of the allocation with PrologFlags=Alloc):
//     ensures the job's image is cached (ImageCache::ensure_cached, pin holder "job-ID"),
//     within ImageFetchTimeout (waiting for another job's fetch of it included), creates or
//     reopens its warm directory, sweeps warm directories whose time ran out, and writes the
//     outcome to JOBS/ID. It never fails the prolog (a failed prolog drains the node and would
//     disturb other jobs): a bad image, or one not cached in time, is recorded and fails the
//     job's tasks instead.
//   task_prepare (slurm_spank_task_init_privileged, each task of each step): reads JOBS/ID and
//     gives the task SHAREQ_IMAGE_PATH and SHAREQ_WARM_DIR, or the error that fails it.
//   job_epilog (slurm_spank_job_epilog): unpins "job-ID"; when the job kept its nodes warm,
//     pins the image for the warm directory its prolog opened ("warm-ORIGIN", named in JOBS/ID,
//     while its state still says the job has it) and writes its deadline; sweeps; removes
//     JOBS/ID.
//   Both first check that the outcomes in JOBS belong to this boot of the node (JOBS/.boot):
//     after a reboot no epilog ends the jobs that were running, so the first hook forgets their
//     outcomes and unpins their "job-ID" pins, and the sweep takes their warm directories.
//   Both also release the pools' pins ("warm-ORIGIN") that no warm directory's state names (a
//     hook killed between the warm lock and its unpins left them), so that every pool pin
//     belongs to a warm directory the sweep will end.
//
// Layout beside ImageCacheDir (ROOT = its parent directory; "%n" in ImageCacheDir is the node
// name, so that several slurmd on one host keep separate caches):
//   ROOT/jobs/ID            the prolog's outcome for job ID (root, 0600), written under the warm
//                           lock: a warm directory "inuse" by a job without one is a job whose
//                           end was never recorded (its epilog gave up on the lock, or the node
//                           rebooted), and the sweep takes it
//   ROOT/jobs/.boot         the boot the outcomes above were last checked against (each
//                           outcome also names its own): the boot id
//                           (/proc/sys/kernel/random/boot_id), "+", and when PID 1 started
//                           (/proc/1/stat), so that a slurmd container's restart is a reboot
//   ROOT/warm/NAME/         a warm directory (the job's user, 0700); NAME = "warm-ORIGIN",
//                           ORIGIN being the job that made the pool (slurmctld names it)
//   ROOT/warm/NAME.state    "inuse JOB DIGEST" while a job uses it, "until EPOCH DIGEST" after
//   ROOT/warm/.lock         flock'ed (a bounded wait) to read or change the states and names
//                           above: held only for that and for renames, never for removing a
//                           tree or waiting for an image's lock, so hooks do not queue behind
//                           a user's million files or another job's fetch
//   ROOT/warm/.trash/       (root, 0700) where a sweep moves warm directories under the lock, to
//                           remove them after it; what a killed hook left is removed by the next.
//                           Also where a new warm directory is made (.new-NAME) and given to its
//                           user before it is renamed into ROOT/warm (what a killed hook left
//                           of one goes at the next sweep)
// (the texts of NAME.state, JOBS/ID and SHAREQ_WARM_ENDED are in the core: warm/node_files.hpp)
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "node_paths.hpp"
#include "result.hpp"
#include "warm/node_files.hpp"

namespace shareq::spank_plugin::node {

// Takes one log line, without the "shareq: " prefix.
using LogFn = std::function<void(const std::string&)>;

// What the prolog and epilog know of the job (from Slurm's items and the job's spank env).
struct JobFacts {
  uint32_t job_id = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string node;          // SLURMD_NODENAME
  std::string image;         // SHAREQ_IMAGE ("" = none), as accepted by job_submit
  std::string image_digest;  // SHAREQ_IMAGE_DIGEST: resolved at submission ("" = unknown)
  std::string warm_name;     // SHAREQ_WARM_NAME: "warm-ORIGIN" ("" = no warm directory)
  int64_t keep_alive_s = 0;  // SHAREQ_KEEP_ALIVE
  // SHAREQ_WARM_ENDED: warm directories of pools that slurmctld ended before their deadline
  // (an admin ended them, a node went down, or this job took their nodes in prefer mode). They
  // go now rather than at their deadline.
  std::vector<std::string> warm_ended;
};

// The prolog's outcome, as the tasks read it (ROOT/jobs/ID).
using Prepared = warm::PreparedJob;

// "warm-1,warm-2" -> {"warm-1", "warm-2"}; anything that is not a warm directory name is dropped.
using warm::split_warm_names;

// How long a hook waits for ROOT/warm/.lock. Its holders only read and write state files and
// rename directories (never remove a tree nor wait for an image's lock, except the first hook
// after a reboot), which takes well under a second: a wait this long means a holder is stuck,
// and the hook goes on without the lock rather than queue every later prolog and epilog of the
// node behind it.
inline constexpr std::chrono::milliseconds kWarmLockWait = std::chrono::seconds(60);

// The prolog. Logs through `log`; never throws.
void job_prolog(const Config& config, const JobFacts& job, int64_t now, const LogFn& log,
                std::chrono::milliseconds warm_lock_wait = kWarmLockWait);
// The epilog.
void job_epilog(const Config& config, const JobFacts& job, int64_t now, const LogFn& log,
                std::chrono::milliseconds warm_lock_wait = kWarmLockWait);
// What the prolog left for this job on this node; nullopt when it left nothing.
std::optional<Prepared> read_prepared(const Config& config, const std::string& node,
                                      uint32_t job_id);

}  // namespace shareq::spank_plugin::node
