// Times and durations as sacct prints them. No clock and no time zone is read: a timestamp is
// taken as UTC, which keeps differences between timestamps right and the result reproducible.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shareq::sim {

// "YYYY-MM-DDTHH:MM:SS" -> seconds since 1970-01-01T00:00:00 (as UTC); nullopt when malformed
// or out of range (years 1970..9999).
std::optional<int64_t> parse_timestamp(std::string_view text);

// sacct's Elapsed: "[D-]HH:MM:SS" or "MM:SS" (also "HH:MM:SS.mmm", fraction ignored) -> seconds.
std::optional<int64_t> parse_elapsed(std::string_view text);

// A slurm.conf duration in minutes, as Slurm's time_str2mins reads PriorityCalcPeriod and
// PriorityDecayHalfLife: "MINUTES", "MINUTES:SECONDS", "HOURS:MINUTES:SECONDS", "DAYS-HOURS",
// "DAYS-HOURS:MINUTES" or "DAYS-HOURS:MINUTES:SECONDS" -> seconds, rounded up to whole minutes
// as Slurm does; nullopt when malformed (at most 100,000 days).
std::optional<int64_t> parse_slurm_minutes(std::string_view text);

}  // namespace shareq::sim
