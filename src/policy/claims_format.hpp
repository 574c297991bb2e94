// Reclaims in flight as text, so that slurmctld keeps them across a restart
// (StateSaveLocation/shareq_reclaim_claims; reclaim_claims.hpp says why they exist).
//
// Version 1, one claim per line, fields "key=value" separated by one space, every key once, in
// this order:
//   shareq-reclaim-claims 1
//   claim job=42 share=prodexp1 family=p5 amount=8 priority=50 since=1700000000 victims=17,18
//   end
// Shares and families are written by name: a reconfiguration between the write and the read may
// renumber them. The final "end" line tells a complete file from a truncated one.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/reclaim_claims.hpp"
#include "result.hpp"

namespace shareq::policy {

inline constexpr int kClaimsFormatVersion = 1;

// A claim with its share and family by name.
struct NamedClaim {
  JobId job = 0;
  std::string share;
  std::string family;
  int64_t amount = 0;
  int priority = 0;
  Time since = 0;
  std::vector<JobId> victims;
  bool operator==(const NamedClaim&) const = default;
};

std::string format_claims(std::span<const NamedClaim> claims);

// Parses what format_claims wrote. Never throws and never crashes; any malformed, truncated or
// inconsistent input (unknown version, a missing, unknown or repeated key, a bad name or number,
// two claims of one job) is an Error whose field is "reclaim claims" and whose message names the
// line: "line 2: amount: ...".
Result<std::vector<NamedClaim>> parse_claims(std::string_view text);

}  // namespace shareq::policy
