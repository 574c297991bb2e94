// The node side's own small texts, which plugins/spank/node.cpp writes and reads as root on each
// node (it does the file I/O; this is the pure part). Layout beside ImageCacheDir (see
// plugins/spank/node.hpp):
//
//   ROOT/warm/NAME.state   a warm directory's state, one line:
//                            "inuse JOB DIGEST" while job JOB uses it,
//                            "until EPOCH DIGEST" after (the deadline, epoch seconds);
//                          DIGEST is the pinned image's sha256 (64 lower-case hex) or empty.
//   ROOT/jobs/ID           the prolog's outcome for job ID, one "key=value" a line:
//                            image_path=PATH, digest=HEX, warm_dir=PATH, error=SENTENCE
//   SHAREQ_WARM_ENDED      (the job's environment, from slurmctld) "warm-1,warm-2": warm
//                          directories of pools that ended before their deadline.
//
// Pure: no file, no clock, no Slurm header. The parsers never throw and never crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shareq::warm {

// ROOT/warm/NAME.state.
struct WarmDirState {
  std::string kind;    // "inuse" or "until" (any word is read back; callers compare)
  int64_t value = 0;   // the job id for "inuse", the deadline for "until"
  std::string digest;  // "" or 64 lower-case hex digits
  bool operator==(const WarmDirState&) const = default;
};

// "KIND VALUE DIGEST\n". Precondition: kind is one word (no space, tab or newline).
std::string format_warm_dir_state(const WarmDirState& state);

// The first two whitespace-separated words (a word, then a decimal integer as std::istream
// reads one: optional sign, leading whitespace, in range) and an optional third, the digest,
// which is dropped (left "") when it is not 64 lower-case hex digits; what follows is ignored.
// nullopt when the kind or the number is missing or malformed.
std::optional<WarmDirState> parse_warm_dir_state(std::string_view text);

// ROOT/jobs/ID: what the prolog prepared for the job's tasks.
struct PreparedJob {
  std::string image_path;  // "" when the job has no image
  std::string digest;
  std::string warm_dir;  // "" when none
  std::string error;     // "" when fine; else the sentence that fails the job's tasks
  // The node's boot id when the prolog wrote it: after a reboot, the outcomes of another boot
  // are of jobs that ended with it ("" in files written before shareq recorded it).
  std::string boot;
  bool operator==(const PreparedJob&) const = default;
};

// "image_path=...\ndigest=...\nwarm_dir=...\nerror=...\nboot=...\n"; a '\n' or '\r' inside a
// value is written as a space, so that every value stays on its line.
std::string format_prepared(const PreparedJob& prepared);

// Each line "KEY=VALUE" (split at the first '='; the last line may lack its newline) sets the
// field KEY; lines without '=' and unknown keys are ignored, a later line wins. Any text parses.
PreparedJob parse_prepared(std::string_view text);

// The boot a node's outcomes belong to: the kernel's boot id (/proc/sys/kernel/random/boot_id),
// then "+" and when PID 1 started (clock ticks since the kernel booted, /proc/1/stat) as the
// node's hooks see it. A slurmd in a container keeps the host's boot id when the container
// restarts, which ends every job the container ran as a reboot does; its PID 1 is then a new
// one. "" when the boot id is unknown; the boot id alone when PID 1's start is.
std::string node_boot(std::string_view kernel_boot_id, std::string_view init_start_ticks);

// When PID 1 started, from the text of /proc/1/stat: its 22nd field (the fields after the last
// ')', which closes the command name, start at the 3rd); "" when the text has no such field or
// it is not a decimal number.
std::string init_start_ticks(std::string_view proc_stat);

// Whether `recorded` (a boot a mark or an outcome names) is `current`. A boot id alone (written
// by shareq before PID 1's start was part of it, or where that could not be read) is the same
// boot as any with that boot id: so that an upgrade forgets no running job's outcome, a container
// restart is told only between boots that both name PID 1's start.
bool same_boot(std::string_view recorded, std::string_view current);

// "warm-1,warm-2" -> {"warm-1", "warm-2"}; anything that is not a warm directory name
// (is_node_warm_name) is dropped.
std::vector<std::string> split_warm_names(std::string_view list);

}  // namespace shareq::warm
