// The warm-pool registry as text, so slurmctld keeps its pools across a restart.
//
// Version 2, one record per line, fields "key=value" separated by one space, every key once:
//   shareq-warm-pools 2
//   next-id 43
//   pool id=42 status=reused created=1000 expires=1900 origin=17 reused=18,19 user=alice
//        uid=1001 account=prodexp1 partition=p4 image=<64 hex or empty> nodes=n1,n2
//        match=image,account,user,partition,nodes dir=/var/lib/shareq/warm/wp-42
//   ended node=n3 name=warm-12 until=1700
//   end
// (each pool on one line). An "ended" line is one warm directory of a pool that ended before
// its deadline (WarmPoolRegistry::ended_early()). Version 1, written before there were "ended"
// lines, is read too. Text values are percent-encoded: bytes other than [A-Za-z0-9_.:/@+-]
// are written %XX, so ' ', ',' and '=' never appear raw. Lists are comma-separated; an empty
// value is an empty list. The final "end" line tells a complete file from a truncated one.
// Only live pools (available, in-use, reused) are kept; the key is rebuilt from the pool's facts
// and its own match fields.
#pragma once

#include <string>
#include <string_view>

#include "result.hpp"
#include "warm/registry.hpp"

namespace shareq::warm {

inline constexpr int kStateFormatVersion = 2;

// The registry as text (deterministic: pools by id, then ended directories by node and name).
std::string format_registry(const WarmPoolRegistry& registry);

// Parses what format_registry wrote, with `settings` for the new registry. Never throws and
// never crashes; any malformed, truncated or inconsistent input (unknown version, unknown or
// repeated key, bad number, digest or path, a node in two pools...) is an Error whose field is
// "warm pool state" and whose message names the line: "line 3: pool: uid: ...".
Result<WarmPoolRegistry> parse_registry(std::string_view text, WarmSettings settings);

}  // namespace shareq::warm
