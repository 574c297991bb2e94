#include "node.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "imagecache/cache_metrics.hpp"
#include "imagecache/fs_util.hpp"
#include "imagecache/image_cache.hpp"
#include "metrics/image_cache_metrics.hpp"
#include "node_paths.hpp"
#include "flags.hpp"
#include "text.hpp"
#include "warm/digest_file.hpp"
#include "warm/node_files.hpp"
#include "warm/pool.hpp"
#include "warm_tree.hpp"

namespace shareq::spank_plugin::node {
namespace {

using Log = const LogFn&;

// Creates `dir` (and parents) root-owned 0755; false with a log line on failure.
bool ensure_root_dir(const std::string& dir, Log log) {
  std::string partial;
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    partial = slash == std::string::npos ? dir : dir.substr(0, slash);
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      log("cannot create " + partial + ": " + std::strerror(errno));
      return false;
    }
    if (slash == std::string::npos) break;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
    log(dir + " is not a root-owned directory; refusing to use it");
    return false;
  }
  return true;
}

// Writes `text` to `path` atomically (temp file, fsync, rename), mode 0600.
bool write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The flock on ROOT/warm/.lock that guards the state files, the warm directories' names and
// the outcomes in ROOT/jobs; released with the FileLock. Errors: the lock file cannot be opened,
// the wait (kWarmLockWait unless a test says otherwise) ran out.
Result<imagecache::fs::FileLock> lock_warm(const std::string& warm,
                                           std::chrono::milliseconds wait) {
  return imagecache::fs::FileLock::acquire(
      warm + "/.lock", wait.count(), "another prolog or epilog of this node holds it; stuck?");
}

// The names in `dir`; none when it cannot be listed (the hooks go on: what they would have
// swept or forgotten is still there for the next one).
std::vector<std::string> names_in(const std::string& dir) {
  Result<std::vector<std::string>> names = imagecache::fs::list_dir(dir);
  return names ? std::move(names).value() : std::vector<std::string>{};
}

// NAME.state (warm/node_files.hpp); nullopt when missing or unreadable.
std::optional<warm::WarmDirState> read_state(const std::string& path) {
  auto text = read_file(path);
  if (!text) return std::nullopt;
  return warm::parse_warm_dir_state(*text);
}

std::optional<imagecache::ImageCache> open_cache(const Config& config, const NodePaths& p,
                                                 std::string* why) {
  imagecache::CacheOptions options = imagecache::CacheOptions::from_config(config);
  options.cache_dir = p.cache;
  options.transfer.connect_timeout_s = 10;
  options.transfer.stall_timeout_s = 30;
  auto cache = imagecache::ImageCache::open(options);
  if (!cache) {
    if (why != nullptr) *why = cache.error().message;
    return std::nullopt;
  }
  return std::move(cache).value();
}

// ROOT/warm/.trash: where the sweep moves warm directories, under the lock, to be removed after
// it (root's, 0700: their users no longer reach them). Same file system, so a rename.
std::string trash_dir(const NodePaths& p) { return p.warm + "/.trash"; }

// Where a new warm directory NAME is made (create_warm_dir): TRASH/.new-NAME, which only the
// sweep removes, under the lock (remove_trash_entries).
constexpr std::string_view kStagingPrefix = ".new-";
std::string staging_dir(const NodePaths& p, const std::string& name) {
  return trash_dir(p) + "/" + std::string(kStagingPrefix) + name;
}

bool ensure_trash(const NodePaths& p, Log log) {
  const std::string trash = trash_dir(p);
  struct stat st {};
  if (::mkdir(trash.c_str(), 0700) != 0 && errno != EEXIST) {
    log("cannot create " + trash + ": " + std::strerror(errno));
    return false;
  }
  if (::lstat(trash.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
    log(trash + " is not a root-owned directory; refusing to use it");
    return false;
  }
  return true;
}

// Moves ROOT/warm/NAME into the trash under a name of its own. Result: its path there; "" when
// there was no such directory. Errors name the directory and the cause (a mount point: EBUSY).
Result<std::string> move_to_trash(const NodePaths& p, const std::string& name, int64_t now) {
  const std::string from = p.warm + "/" + name;
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0 && errno == ENOENT) return std::string();
  const std::string stem = trash_dir(p) + "/" + name + "." + std::to_string(now) + "." +
                           std::to_string(::getpid()) + ".";
  // A name left by an earlier hook with the same pid (killed while removing it) is skipped.
  for (int n = 0; n < 100; ++n) {
    const std::string to = stem + std::to_string(n);
    if (::rename(from.c_str(), to.c_str()) == 0) return to;
    if (errno != EEXIST && errno != ENOTEMPTY) break;
  }
  return Error{"warm directory", from + ": cannot move it into " + trash_dir(p) + ": " +
                                     std::strerror(errno) + "; left in place"};
}

// Why the sweep took a warm directory.
enum class SweepCause {
  Expired,     // its deadline passed
  EndedEarly,  // slurmctld ended its pool (SHAREQ_WARM_ENDED)
  Orphaned,    // "inuse" by a job whose end was never recorded on this node
};

// A warm directory the sweep ended: out of the way under the lock; removed, its image unpinned,
// after the lock (the work whose length the directory's user or another job's fetch decides).
struct Swept {
  std::string name;
  SweepCause cause = SweepCause::Expired;
  int64_t job = 0;            // Orphaned: the job it was left in use by
  Result<std::string> trash;  // where it went ("" nowhere: there was none), or why it stayed
  std::string digest;         // its image, to unpin; "" when none
};

// Whether the sweep takes the warm directory whose state is `state` (nullopt: none, or one that
// cannot be read), and why. A directory "inuse" stays while its job has an outcome on the node:
// the prolog writes that under the warm lock, and the epilog removes it only after it wrote the
// state "until" under the lock, so without one the job's end was never recorded (its epilog gave
// up on the lock, or the node rebooted and its outcomes were forgotten).
std::optional<SweepCause> sweep_cause(const NodePaths& p,
                                      const std::optional<warm::WarmDirState>& state, bool ended,
                                      int64_t now) {
  if (!state) return SweepCause::Expired;
  if (state->kind == "inuse") {
    const bool recorded = state->value > 0 && state->value <= UINT32_MAX &&
                          exists(prepared_file(p, static_cast<uint32_t>(state->value)));
    return recorded ? std::nullopt : std::optional(SweepCause::Orphaned);
  }
  if (state->kind != "until") return SweepCause::Expired;
  if (ended) return SweepCause::EndedEarly;
  return state->value <= now ? std::optional(SweepCause::Expired) : std::nullopt;
}

// Removes entries of the trash: the staging directories (create_warm_dir) when `staging`, every
// other entry otherwise.
//  - Staging directories, under the lock (the sweep): no staging directory is being made then, so
//    each one there is what a hook killed while making a warm directory left, and an empty one
//    (no one but root ever reached it), so this is quick.
//  - The rest, after the lock (finish_after_lock): what the sweep moved there, and what a hook
//    killed while removing it left (those another hook is removing now too: both get on with
//    it, each name goes once). Not the staging directories, which a hook holding the lock may be
//    making.
void remove_trash_entries(const NodePaths& p, bool staging, Log log) {
  for (const std::string& name : names_in(trash_dir(p))) {
    if (name.starts_with(kStagingPrefix) != staging) continue;
    const auto removed = remove_tree(trash_dir(p) + "/" + name);
    if (!removed) log("warm directory not removed completely: " + removed.error().to_string());
  }
}

// Takes out of use the warm directories whose deadline passed, those of pools slurmctld ended
// early (`ended`) that no job uses, and those left in use by a job whose end was never recorded
// (sweep_cause): moves each into the trash and removes its state file. Lock held.
std::vector<Swept> sweep_locked(const NodePaths& p, const std::string& keep,
                                const std::vector<std::string>& ended, int64_t now, Log log) {
  std::vector<Swept> swept;
  remove_trash_entries(p, /*staging=*/true, log);
  bool trash_ok = false;
  for (const std::string& entry : names_in(p.warm)) {
    const std::string_view suffix = ".state";
    if (entry.size() <= suffix.size() || !entry.ends_with(suffix)) continue;
    const std::string name = entry.substr(0, entry.size() - suffix.size());
    if (name == keep || !warm::is_node_warm_name(name)) continue;
    const std::string state_path = p.warm + "/" + entry;
    const auto state = read_state(state_path);
    const bool ended_early = std::find(ended.begin(), ended.end(), name) != ended.end();
    const std::optional<SweepCause> cause = sweep_cause(p, state, ended_early, now);
    if (!cause) continue;
    if (!trash_ok) trash_ok = ensure_trash(p, log);
    if (!trash_ok) return swept;  // logged; the next hook tries again
    // The pool is over either way: what could not be moved is left for an admin, named in the
    // log, rather than retried by every later prolog.
    swept.push_back({name, *cause, *cause == SweepCause::Orphaned ? state->value : 0,
                     move_to_trash(p, name, now), state ? state->digest : std::string()});
    ::unlink(state_path.c_str());
  }
  return swept;
}

// The holder of the image pin a job's prolog takes and its epilog releases.
std::string job_pin_holder(uint32_t job_id) { return "job-" + std::to_string(job_id); }

// What a hook does once it released the warm lock. An unpin there may, in a rare race, drop a
// pin that a job of a pool of the same name took in between (a pool slurmctld still had while
// this node's clock had ended it): the image is then only evictable early, and fetched again
// when needed; nothing that a job uses goes.
struct AfterLock {
  std::vector<std::pair<std::string, std::string>> unpins;  // digest, holder
  std::vector<Swept> swept;
  // Pins left behind by a killed hook (release_leaked_pins), each with the start of the line
  // that says so once it is released.
  struct LeakedPin {
    imagecache::Pin pin;
    std::string line;
  };
  std::vector<LeakedPin> leaked_pins;
};

// Under the warm lock, before this hook changes any state: leaves in `after` the release of each
// pool pin (holder warm-N) that its warm directory's state does not name. A state names the image
// its pool keeps, and the sweep and the epilog unpin only that one, so such a pin is one that a
// hook killed between the lock and its unpins left (or an earlier shareq), and no eviction could
// ever take its image. Listed under the lock (a directory listing: no image's lock is waited
// for), so a pin another hook released before is not seen, and one an epilog took for its pool
// before the lock is named by the state ("inuse JOB DIGEST"). Nothing when the node's image cache
// has no pins or cannot be used.
//
// An epilog (`ended_job` its job; 0 for a prolog) also releases every pin its job still holds:
// it unpinned the image its job's outcome names before the lock, so a pin left is one a prolog
// killed between its pin and its outcome took. slurmd runs a job's epilog only once its prolog
// has ended, so none is still on its way (another job's pin without an outcome may be).
void release_leaked_pins(const Config& config, const NodePaths& p,
                         std::optional<imagecache::ImageCache>& cache, AfterLock& after,
                         const std::string& phase, uint32_t ended_job) {
  if (!exists(p.cache + "/pins")) return;
  if (!cache) cache = open_cache(config, p, nullptr);
  if (!cache) return;
  Result<std::vector<imagecache::Pin>> pins = cache->pins();
  if (!pins) return;
  const std::string ended_holder = ended_job != 0 ? job_pin_holder(ended_job) : "";
  for (imagecache::Pin& pin : std::move(pins).value()) {
    if (!ended_holder.empty() && pin.holder == ended_holder) {
      std::string line = phase + ": image " + pin.digest + " was still pinned by job ";
      line.append(std::to_string(ended_job)).append(", whose prolog ended before it recorded it");
      after.leaked_pins.push_back({std::move(pin), std::move(line)});
      continue;
    }
    if (!warm::is_node_warm_name(pin.holder)) continue;
    const auto state = read_state(p.warm + "/" + pin.holder + ".state");
    if (state && state->digest == pin.digest) continue;
    std::string line = phase + ": image " + pin.digest;
    line.append(" was still pinned by warm directory ").append(pin.holder).append(", which ");
    line.append(!state ? "has no state"
                       : "names " + (state->digest.empty() ? "no image" : state->digest));
    after.leaked_pins.push_back({std::move(pin), std::move(line)});
  }
}

// " expired: ", ...: what the sweep's log line says of why it took `s`.
std::string sweep_reason(const Swept& s) {
  switch (s.cause) {
    case SweepCause::EndedEarly:
      return " ended early in slurmctld: ";
    case SweepCause::Orphaned:
      return " left in use by job " + std::to_string(s.job) +
             ", which no longer runs on this node (its end was never recorded): ";
    case SweepCause::Expired:
      break;
  }
  return " expired: ";
}

// After the lock: every unpin first (they are what the race described at AfterLock is about, so
// they come as soon after the lock as can be), then removes what the sweep moved into the trash
// (logging each) and anything else there.
void finish_after_lock(const Config& config, const NodePaths& p, const AfterLock& after,
                       std::optional<imagecache::ImageCache>& cache, Log log) {
  auto unpin = [&](const std::string& digest, const std::string& holder) -> std::string {
    if (!cache) cache = open_cache(config, p, nullptr);
    if (!cache) return "the node's image cache cannot be used";
    const Result<bool> unpinned = cache->unpin(digest, holder);
    return unpinned ? std::string() : unpinned.error().message;
  };
  for (const auto& [digest, holder] : after.unpins) (void)unpin(digest, holder);
  for (const AfterLock::LeakedPin& leaked : after.leaked_pins) {  // listed through `cache`
    const Result<bool> unpinned = cache->unpin(leaked.pin.digest, leaked.pin.holder);
    if (!unpinned) {
      log(leaked.line + ": pin not released: " + unpinned.error().message);
    } else if (unpinned.value()) {
      log(leaked.line + ": pin released");
    }
  }
  std::vector<std::string> unpin_errors;
  for (const Swept& s : after.swept) {
    unpin_errors.push_back(s.digest.empty() ? "" : unpin(s.digest, s.name));
  }
  for (size_t i = 0; i < after.swept.size(); ++i) {
    const Swept& s = after.swept[i];
    Result<bool> removed = true;
    if (!s.trash) {
      removed = s.trash.error();
    } else if (!s.trash.value().empty()) {
      removed = remove_tree(s.trash.value());
    }
    std::string line =
        "warm directory " + s.name + sweep_reason(s) +
        (removed ? "removed" : "not removed completely (" + removed.error().to_string() + ")");
    if (!s.digest.empty()) {
      line +=
          unpin_errors[i].empty() ? ", image unpinned" : ", image not unpinned: " + unpin_errors[i];
    }
    log(line);
  }
  remove_trash_entries(p, /*staging=*/false, log);
}

// Creates the job's warm directory `dir`: made in the trash (root's, 0700: no one reaches it
// there) and given to the job's user, then renamed into ROOT/warm, so that ROOT/warm never holds
// a warm directory its user does not own, not even between a mkdir and a chown. Lock held (so
// whatever is at the staging name is what a killed hook left). "" on success, else the error.
std::string create_warm_dir(const NodePaths& p, const JobFacts& job, const std::string& dir,
                            Log log) {
  if (!ensure_trash(p, log)) {
    return "cannot create warm directory " + dir + ": " + trash_dir(p) + " cannot be used";
  }
  const std::string made = staging_dir(p, job.warm_name);
  (void)remove_tree(made);
  if (::mkdir(made.c_str(), 0700) != 0 || ::chown(made.c_str(), job.uid, job.gid) != 0 ||
      ::rename(made.c_str(), dir.c_str()) != 0) {
    const int error_number = errno;
    (void)remove_tree(made);
    return "cannot create warm directory " + dir + ": " + std::strerror(error_number);
  }
  return {};
}

// Creates or reopens the job's warm directory; "" on success, else the error. Lock held. A
// directory reopened for a job of another image (the pool's tag now names another digest, or the
// job has none) no longer keeps the pool's image: its pin goes in `after`, since the sweep and the
// epilog unpin only the digest the state names (a hook killed between the lock and its unpins
// leaves such a pin, as it leaves a swept directory's: the next hook releases it,
// release_leaked_pins).
std::string open_warm_dir(const NodePaths& p, const JobFacts& job, const std::string& digest,
                          AfterLock& after, Log log) {
  const std::string dir = p.warm + "/" + job.warm_name;
  const std::string state_path = dir + ".state";
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode) || st.st_uid != job.uid) {
      return "warm directory " + job.warm_name + " exists but is not the job user's directory";
    }
  } else if (std::string why = create_warm_dir(p, job, dir, log); !why.empty()) {
    return why;
  }
  ::chmod(dir.c_str(), 0700);
  const auto old = read_state(state_path);
  const std::string state = warm::format_warm_dir_state({"inuse", job.job_id, digest});
  if (!write_atomic(state_path, state)) {
    return "cannot record warm directory " + job.warm_name + ": " + std::strerror(errno);
  }
  if (old && !old->digest.empty() && old->digest != digest) {
    after.unpins.emplace_back(old->digest, job.warm_name);
  }
  return {};
}

// Rewrites the node's image-cache metrics file (when ImageCacheMetricsFile is set), counting
// `request` when given. Metrics never fail a job: a problem is logged and the job goes on.
void export_metrics(const Config& config, const NodePaths& p,
                    std::optional<imagecache::ImageCache>& cache,
                    const std::optional<metrics::ImageRequest>& request, const std::string& phase,
                    Log log) {
  if (p.metrics_file.empty()) return;
  std::string why;
  if (!cache) cache = open_cache(config, p, &why);
  if (!cache) {
    log(phase + ": image cache metrics not written: the node's image cache cannot be used: " + why);
    return;
  }
  Result<std::string> updated = imagecache::update_cache_metrics(*cache, request, p.metrics_file);
  if (!updated) {
    log(phase + ": image cache metrics not written: " + updated.error().to_string());
  } else if (!updated.value().empty()) {
    log(phase + ": image cache metrics: " + updated.value());
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The prolog's outcome in the file `path` (ROOT/jobs/ID); nullopt when there is none.
std::optional<Prepared> read_outcome(const std::string& path) {
  auto text = read_file(path);
  if (!text) return std::nullopt;
  return warm::parse_prepared(*text);
}

// This boot of the node (warm::node_boot: the kernel's boot id, and when PID 1 started, so that a
// container's restart counts as one); "" when the boot id cannot be read, and then no hook
// forgets anything.
std::string this_boot() {
  std::string boot = read_file("/proc/sys/kernel/random/boot_id").value_or("");
  while (!boot.empty() && (boot.back() == '\n' || boot.back() == ' ')) boot.pop_back();
  return warm::node_boot(boot, warm::init_start_ticks(read_file("/proc/1/stat").value_or("")));
}

// ROOT/jobs/.boot: the boot the outcomes in ROOT/jobs belong to.
std::string boot_mark(const NodePaths& p) { return p.jobs + "/.boot"; }

// Whether the mark names `boot`, in this boot's own words: a mark of the same boot in an earlier
// shareq's words (warm::same_boot) is written again, under the lock, by the first hook.
bool marked_for(const NodePaths& p, const std::string& boot) {
  return read_file(boot_mark(p)) == boot + "\n";
}

// The jobs with an outcome in ROOT/jobs (entries named by a job id).
std::vector<uint32_t> jobs_with_outcomes(const NodePaths& p) {
  std::vector<uint32_t> ids;
  for (const std::string& name : names_in(p.jobs)) {
    const text::Number id = text::parse_decimal(name, UINT32_MAX);
    if (id.status == text::NumberStatus::Ok && id.value > 0) {
      ids.push_back(static_cast<uint32_t>(id.value));
    }
  }
  return ids;
}

// After a reboot no epilog comes for the jobs the node was running: their outcomes in ROOT/jobs,
// and their "job-ID" image pins, would stay for good (images no eviction can take), and so would
// their warm directories "inuse". The first hook of a boot (`boot`) that finds a mark of another
// boot removes the outcomes of other boots and unpins their pins (the sweep then takes the warm
// directories: sweep_cause), and marks the outcomes as this boot's. All of it under the warm
// lock, and before the hook pins anything, so that a hook beside it waits until it is done: a job
// requeued onto the node under the same id keeps the pin its new prolog takes. Each outcome
// names its boot, so that one written in this boot before the mark (by a prolog that could not
// take the lock for this) is kept. No mark at all (shareq before the mark): nothing is
// forgotten. A mark that cannot be written is removed, so that a stale one never makes a later
// hook look again.
void forget_jobs_of_an_earlier_boot(const Config& config, const NodePaths& p,
                                    const std::string& boot,
                                    std::optional<imagecache::ImageCache>& cache,
                                    std::chrono::milliseconds wait, const std::string& phase,
                                    Log log) {
  if (boot.empty() || marked_for(p, boot)) return;  // every hook but a boot's first
  Result<imagecache::fs::FileLock> lock = lock_warm(p.warm, wait);
  if (!lock) {
    log(phase + ": jobs of an earlier boot not looked for: " + lock.error().message);
    return;
  }
  if (marked_for(p, boot)) return;  // a hook beside this one was first
  if (exists(boot_mark(p))) {
    size_t forgotten = 0;
    for (const uint32_t id : jobs_with_outcomes(p)) {
      const std::string outcome = prepared_file(p, id);
      const Prepared prepared = read_outcome(outcome).value_or(Prepared{});
      if (warm::same_boot(prepared.boot, boot)) continue;
      ::unlink(outcome.c_str());
      ++forgotten;
      const std::string& digest = prepared.digest;
      if (!warm::is_sha256_hex(digest, false)) continue;
      std::string why;
      if (!cache) cache = open_cache(config, p, &why);
      if (!cache) {
        std::string line = phase + ": job " + std::to_string(id);
        line.append(" of an earlier boot: image ").append(digest);
        line.append(" not unpinned: the node's image cache cannot be used: ").append(why);
        log(line);
        continue;
      }
      (void)cache->unpin(digest, job_pin_holder(id));
    }
    if (forgotten > 0) {
      log(phase + ": the node rebooted: forgot " + std::to_string(forgotten) +
          " job(s) that ended with the earlier boot (their image pins released, their warm "
          "directories go at the next sweep)");
    }
  }
  if (!write_atomic(boot_mark(p), boot + "\n")) {
    log(phase + ": cannot write " + boot_mark(p) + ": " + std::strerror(errno));
    ::unlink(boot_mark(p).c_str());
  }
}

}  // namespace

void job_prolog(const Config& config, const JobFacts& job, int64_t now, Log log,
                std::chrono::milliseconds warm_lock_wait) {
  const NodePaths p = node_paths(config, job.node);
  if (!ensure_root_dir(p.jobs, log) || !ensure_root_dir(p.warm, log)) return;
  std::optional<imagecache::ImageCache> cache;
  const std::string boot = this_boot();
  forget_jobs_of_an_earlier_boot(config, p, boot, cache, warm_lock_wait, "prolog", log);
  Prepared out;
  out.boot = boot;
  std::optional<metrics::ImageRequest> request;  // what the job's image request ended in
  if (!job.image.empty()) {
    Result<ImageRef> ref = parse_image_ref(job.image);
    std::string why;
    if (!ref) {
      out.error = "image " + job.image + ": " + ref.error().message;
    } else if (!(cache = open_cache(config, p, &why))) {
      out.error = "image " + job.image + ": the node's image cache cannot be used: " + why;
    } else {
      ImageRef wanted = ref.value();
      if (!wanted.sha256 && warm::is_sha256_hex(job.image_digest, false)) {
        wanted.sha256 = job.image_digest;  // the digest resolved at submission
      }
      const auto start = std::chrono::steady_clock::now();
      auto cached = cache->ensure_cached(wanted, job_pin_holder(job.job_id), now);
      request =
          metrics::ImageRequest{metrics::ImageRequest::Outcome::Failed, seconds_since(start), 0};
      if (cached) {
        if (cached.value().fetched) {
          request->outcome = metrics::ImageRequest::Outcome::Fetched;
          request->bytes = cached.value().size;
        } else {
          request->outcome = metrics::ImageRequest::Outcome::Hit;
        }
        out.image_path = cached.value().path;
        out.digest = cached.value().digest;
        log("prolog: job " + std::to_string(job.job_id) + ": image " + job.image + " " +
            (cached.value().fetched ? "fetched" : "already cached") + " (" +
            std::to_string(cached.value().size) + " bytes) at " + out.image_path);
      } else {
        out.error = cached.error().message;
      }
    }
    if (!out.error.empty()) {
      log("prolog: job " + std::to_string(job.job_id) + ": " + out.error);
    }
  }
  AfterLock after;
  {
    Result<imagecache::fs::FileLock> lock = lock_warm(p.warm, warm_lock_wait);
    if (!lock) {
      // Without the lock a warm directory can be neither handed out nor swept.
      log("prolog: job " + std::to_string(job.job_id) + ": " + lock.error().message);
      if (out.error.empty() && warm::is_node_warm_name(job.warm_name)) {
        out.error = "warm directory " + job.warm_name + ": " + lock.error().message;
      }
    } else {
      release_leaked_pins(config, p, cache, after, "prolog", 0);
      if (out.error.empty() && warm::is_node_warm_name(job.warm_name)) {
        out.error = open_warm_dir(p, job, out.digest, after, log);
        if (out.error.empty()) out.warm_dir = p.warm + "/" + job.warm_name;
      }
      after.swept = sweep_locked(p, job.warm_name, job.warm_ended, now, log);
    }
    // Under the lock, with the warm directory's state "inuse": no sweep sees the one without the
    // other (sweep_cause).
    const std::string outcome = prepared_file(p, job.job_id);
    if (!write_atomic(outcome, warm::format_prepared(out))) {
      log("prolog: job " + std::to_string(job.job_id) + ": cannot write " + outcome + ": " +
          std::strerror(errno));
    }
  }
  finish_after_lock(config, p, after, cache, log);
  export_metrics(config, p, cache, request, "prolog", log);
}

std::optional<Prepared> read_prepared(const Config& config, const std::string& node,
                                      uint32_t job_id) {
  return read_outcome(prepared_file(node_paths(config, node), job_id));
}

// The warm directory the prolog opened for its job, by the path in its outcome ("" none). The
// epilog goes by this, not by the name in its own environment: after slurmctld restarted in the
// middle of a job's start, the two can differ, and a warm directory is released only by the job
// that had it.
std::string warm_name_opened(const NodePaths& p, const std::optional<Prepared>& prepared) {
  if (!prepared) return {};
  const std::string& dir = prepared->warm_dir;
  const size_t slash = dir.rfind('/');
  if (slash == std::string::npos || dir.compare(0, slash, p.warm) != 0 || slash != p.warm.size()) {
    return {};
  }
  std::string name = dir.substr(slash + 1);
  return warm::is_node_warm_name(name) ? name : std::string();
}

bool in_use_by(const std::optional<warm::WarmDirState>& state, uint32_t job_id) {
  return state && state->kind == "inuse" && state->value == job_id;
}

// The epilog's part under the warm lock for the warm directory `name` its job used: writes its
// state ("until"), and leaves in `after` the pin it no longer needs. Only while the state still
// says the job has it: a directory another job took since (two jobs given one pool in Slurm's
// crash window), or that a sweep took, is left as it is. `pinned`: the pool's pin the epilog
// took before the lock, undone when the directory turns out not to be the job's.
void release_warm_dir(const NodePaths& p, const JobFacts& job, const std::string& name,
                      const std::string& digest, bool pinned, int64_t now, AfterLock& after,
                      Log log) {
  const std::string state_path = p.warm + "/" + name + ".state";
  const auto state = read_state(state_path);
  const std::string job_text = "epilog: job " + std::to_string(job.job_id);
  if (!in_use_by(state, job.job_id)) {
    log(job_text + ": warm directory " + name + " is no longer this job's (" +
        (state ? state->kind + " " + std::to_string(state->value) : std::string("no state")) +
        "): left as it is");
    if (pinned && (!state || state->digest != digest)) after.unpins.emplace_back(digest, name);
    return;
  }
  const int64_t until = now + std::max<int64_t>(job.keep_alive_s, 0);
  write_atomic(state_path,
               warm::format_warm_dir_state({"until", until, job.keep_alive_s > 0 ? digest : ""}));
  if (job.keep_alive_s > 0) {
    log(job_text + ": warm directory " + name + " kept until " + std::to_string(until));
  } else if (!digest.empty()) {
    after.unpins.emplace_back(digest, name);
  }
}

void job_epilog(const Config& config, const JobFacts& job, int64_t now, Log log,
                std::chrono::milliseconds warm_lock_wait) {
  const NodePaths p = node_paths(config, job.node);
  if (!exists(p.warm)) return;  // no prolog made the layout: nothing of shareq's on this node
  std::optional<imagecache::ImageCache> cache;
  forget_jobs_of_an_earlier_boot(config, p, this_boot(), cache, warm_lock_wait, "epilog", log);
  const auto prepared = read_outcome(prepared_file(p, job.job_id));
  const std::string digest = prepared ? prepared->digest : "";
  const std::string warm_name = warm_name_opened(p, prepared);
  if (!warm_name.empty() && warm_name != job.warm_name) {
    log("epilog: job " + std::to_string(job.job_id) + ": its prolog opened warm directory " +
        warm_name + ", its environment now names " +
        (job.warm_name.empty() ? std::string("none") : job.warm_name) + ": releasing " + warm_name);
  }
  bool pinned = false;
  if (warm::is_sha256_hex(digest, false)) {
    if (!cache) cache = open_cache(config, p, nullptr);
    // Pinning and unpinning wait for the image's lock (a fetch of it holds that for minutes), so
    // neither happens under the warm lock. The pool's pin comes first: the image is never
    // unpinned in between.
    if (cache && job.keep_alive_s > 0 && !warm_name.empty() &&
        in_use_by(read_state(p.warm + "/" + warm_name + ".state"), job.job_id)) {
      pinned = cache->pin(digest, warm_name).ok();
    }
    if (cache) (void)cache->unpin(digest, job_pin_holder(job.job_id));
  }
  AfterLock after;
  if (Result<imagecache::fs::FileLock> lock = lock_warm(p.warm, warm_lock_wait); !lock) {
    log("epilog: job " + std::to_string(job.job_id) + ": " + lock.error().message +
        (warm_name.empty() ? ""
                           : "; warm directory " + warm_name +
                                 " not released: while still in use by this job, the next "
                                 "hook's sweep takes it"));
  } else {
    release_leaked_pins(config, p, cache, after, "epilog", job.job_id);
    if (!warm_name.empty()) release_warm_dir(p, job, warm_name, digest, pinned, now, after, log);
    after.swept = sweep_locked(p, "", job.warm_ended, now, log);
  }
  finish_after_lock(config, p, after, cache, log);
  ::unlink(prepared_file(p, job.job_id).c_str());
  export_metrics(config, p, cache, std::nullopt, "epilog", log);  // pins and evictions changed
}

}  // namespace shareq::spank_plugin::node
