// The AdminComment words that name one run of a job. The controller plugins write them; slurmdbd
// keeps the AdminComment with every run's record (Slurm 22.05 sends it no SystemComment), and
// each word names the start time of the run it is about, so a reader can tell the runs apart:
//   shareq-preempted:R,by:N,run:T   the run that started at T was preempted by job N; R is
//                                   reclaim or in_share
//   shareq-start:H,at:T             the run that started at T started H: warm or cold
//   shareq-fallback:C,from:F,at:T   the run that started at T fell back from family F; C is
//                                   saturated, node_fail or prolog
// Readers: the core (was this run preempted?), shareq-exporter's counters.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "policy/policy.hpp"

namespace shareq::policy {

inline constexpr std::string_view kPreemptedWord = "shareq-preempted:";
inline constexpr std::string_view kStartWord = "shareq-start:";
inline constexpr std::string_view kFallbackWord = "shareq-fallback:";

std::string preempted_word(std::string_view reason, JobId by, Time start);
std::string start_word(std::string_view how, Time start);
std::string fallback_word(std::string_view cause, std::string_view from, Time start);

// The fields after `prefix` of the first word `prefix...` of `admin_comment` that names the run
// that started at `start`, e.g. "reclaim,by:7,run:1700000000".
std::optional<std::string_view> run_word_fields(std::string_view admin_comment,
                                                std::string_view prefix, Time start);

// The first of those fields: "reclaim", "warm", "saturated".
std::optional<std::string_view> run_word_kind(std::string_view admin_comment,
                                              std::string_view prefix, Time start);

// The value of `key:` among comma-separated `fields`.
std::optional<std::string_view> word_field(std::string_view fields, std::string_view key);

}  // namespace shareq::policy
