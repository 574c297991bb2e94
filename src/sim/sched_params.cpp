#include "sim/sched_params.hpp"

#include <vector>

#include "text.hpp"

namespace shareq::sim {
namespace {

struct Param {
  std::string_view key;
  int64_t SchedulerParams::*field;
  int64_t min, max;
  bool minus_one_too;  // -1 is allowed besides min..max (it turns the pass off)
  std::string_view allowed;
};

// Slurm 22.05's ranges (job_scheduler.c, backfill.c), where Slurm has one; else what the
// simulator can represent. batch_sched_delay: Slurm reads it into an int with atoi and refuses
// only a negative value, so it takes 0..INT_MAX (--submit-delay takes the same).
constexpr Param kParams[] = {
    {"sched_interval", &SchedulerParams::sched_interval_s, 0, 86400, true,
     "-1 (no main pass) or 0..86400"},
    {"batch_sched_delay", &SchedulerParams::batch_sched_delay_s, 0, 2'147'483'647, false,
     "0..2147483647"},
    {"default_queue_depth", &SchedulerParams::default_queue_depth, 0, 1'000'000'000, false,
     "0..1000000000"},
    {"partition_job_depth", &SchedulerParams::partition_job_depth, 0, 1'000'000'000, false,
     "0 (no bound)..1000000000"},
    {"bf_interval", &SchedulerParams::bf_interval_s, 1, 10800, true,
     "-1 (no backfill pass) or 1..10800"},
    {"bf_max_job_test", &SchedulerParams::bf_max_job_test, 1, 1'000'000, false, "1..1000000"},
    {"bf_min_prio_reserve", &SchedulerParams::bf_min_prio_reserve, 1, 4'294'967'295, false,
     "1..4294967295"},
};

Result<int64_t> parse_value(const Param& p, std::string_view value) {
  if (p.minus_one_too && value == "-1") return int64_t{-1};
  const auto n = text::parse_decimal(value, static_cast<uint64_t>(p.max));
  const auto v = static_cast<int64_t>(n.value);
  if (n.status == text::NumberStatus::Ok && v >= p.min) return v;
  const std::string field = "SchedulerParameters " + std::string(p.key);
  if (n.status == text::NumberStatus::Ok) {
    return Error{field,
                 text::quote(value) + " is out of range; allowed: " + std::string(p.allowed)};
  }
  return Error{field, text::number_message(value, n, p.allowed)};
}

const Param* find_param(std::string_view key) {
  for (const Param& p : kParams) {
    if (text::iequals(key, p.key)) return &p;
  }
  return nullptr;
}

}  // namespace

Result<bool> check_modelled_parameters(std::string_view list) {
  for (std::string_view item : text::split(list, ',')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && find_param(item.substr(0, eq)) != nullptr) continue;
    std::vector<std::string> keys;
    for (const Param& p : kParams) keys.emplace_back(p.key);
    return Error{"SchedulerParameters", text::quote(item) +
                                            " is not a parameter the simulator models; allowed: " +
                                            text::join(keys) + " (KEY=VALUE)"};
  }
  return true;
}

Result<int64_t> parse_scheduler_parameter(std::string_view key, std::string_view value) {
  return parse_value(*find_param(key), value);
}

Result<bool> apply_scheduler_parameters(std::string_view list, SchedulerParams& params) {
  std::vector<std::string_view> seen;  // Slurm reads a key's first occurrence
  for (std::string_view item : text::split(list, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;  // a flag (preempt_send_user_signal, ...)
    const std::string_view key = item.substr(0, eq);
    for (const Param& p : kParams) {
      if (!text::iequals(key, p.key)) continue;
      bool first = true;
      for (std::string_view s : seen) first = first && !text::iequals(s, key);
      if (!first) break;
      seen.push_back(key);
      auto value = parse_value(p, item.substr(eq + 1));
      if (!value) return value.error();
      params.*p.field = value.value();
    }
  }
  return true;
}

Result<bool> apply_scheduler_type(std::string_view type, SchedulerParams& params) {
  if (text::iequals(type, "sched/backfill")) {
    params.backfill = true;
  } else if (text::iequals(type, "sched/builtin")) {
    params.backfill = false;
  } else {
    return Error{"SchedulerType",
                 text::quote(type) + " is not simulated; allowed: sched/backfill, sched/builtin"};
  }
  return true;
}

}  // namespace shareq::sim
