// A warm node's Extra field (`scontrol show node`): slurmctld (plugins/ctld/warm_pools.cpp)
// writes it on each node of a live warm pool, and `shareq pools` reads it back. One line:
//
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,until=EPOCH,key=KEY   (waiting: available, reused)
//   shareq:wp-N,STATUS,owner=USER/ACCOUNT,job=JOBID,key=KEY     (in-use)
//
// EPOCH is the pool's deadline in seconds since the epoch (UTC, no time zone involved), e.g.
// until=1764612345. KEY is the pool's match key for people (WarmPoolKey::to_string, "any" when
// nothing is matched) and is the rest of the line, commas included. STATUS is
// warm::status_name(). USER and ACCOUNT are Slurm names (no ',' or '/' in the user).
//
// The old form. Before this format, slurmctld wrote until=YYYY-MM-DDTHH:MM:SS in its own local
// time and without an offset. The parser still reads it, so that the nodes an older slurmctld
// marked read during an upgrade (slurmctld rewrites every warm node's Extra at its next periodic
// pass). It cannot tell the zone that time was written in: it returns the wall-clock fields as
// they are (NodeExtra::until_local), and the reader interprets them in its own local time zone,
// which is right when it runs in slurmctld's zone (as `shareq pools` did before).
//
// Pure: no clock, no time zone, no Slurm header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "result.hpp"
#include "warm/pool.hpp"

namespace shareq::warm {

// Every Extra that slurmctld writes for a warm pool starts with this; an Extra without it is an
// admin's own (left alone). kEndPoolRequest ("shareq:end") starts with it too.
inline constexpr std::string_view kExtraPrefix = "shareq:";

// A wall-clock time without a zone, as the old form wrote it.
struct LocalDateTime {
  int year = 1970;  // 0..9999
  int month = 1;    // 1..12
  int day = 1;      // 1..31
  int hour = 0;     // 0..23
  int minute = 0;   // 0..59
  int second = 0;   // 0..60
  bool operator==(const LocalDateTime&) const = default;
};

// "YYYY-MM-DDTHH:MM:SS", as the old form wrote it. Precondition: the fields are in range.
std::string format_local_date_time(const LocalDateTime& time);

// One warm node's Extra, parsed. Exactly one of until, until_local and job is set.
struct NodeExtra {
  std::string pool;              // "wp-3"
  std::string status;            // available, in-use, reused, ... (status_name), as written
  std::string user;              // the pool's owner
  std::string account;           // the owner's account
  std::optional<int64_t> until;  // the deadline, epoch seconds (waiting pools)
  std::optional<LocalDateTime> until_local;  // the deadline in the old form (see above)
  std::optional<uint32_t> job;               // the job using it (in-use pools)
  std::string key;                           // for people; never parse it
  bool operator==(const NodeExtra&) const = default;
};

// True for a text that starts with kExtraPrefix: slurmctld's (a pool, or an admin's request to
// end one), not an admin's own Extra.
bool is_shareq_extra(std::string_view extra);

// What slurmctld shows on each node of `pool`. Precondition: pool.live().
NodeExtra node_extra_of(const WarmPool& pool);

// The Extra line. Precondition: the fields are what node_extra_of or parse_node_extra give
// (exactly one of until, until_local and job; no ',' outside key, no '/' in user). With
// until_local it writes the old form (never done for a live pool: node_extra_of sets until).
std::string format_node_extra(const NodeExtra& extra);

// format_node_extra(node_extra_of(pool)).
std::string node_extra(const WarmPool& pool);

// The pool number of a pool name "wp-N" (N decimal, no sign); nullopt for anything else.
std::optional<PoolId> pool_number(std::string_view name);

// Never throws, never crashes. A text without kExtraPrefix (an admin's Extra), or the end
// request kEndPoolRequest, is no pool: nullopt. Any other "shareq:" text that is not one of the
// lines above (either until= form) is an Error whose field is "Extra" and whose message quotes
// the text and says what is missing ("no pool name wp-N", "no status", "no owner=U/A",
// "bad until=", "no until= or job=", "bad job=", "no key=").
std::optional<Result<NodeExtra>> parse_node_extra(std::string_view extra);

}  // namespace shareq::warm
