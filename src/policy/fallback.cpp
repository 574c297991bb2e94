#include "policy/fallback.hpp"

#include <algorithm>

#include "policy/quota_math.hpp"

namespace shareq::policy {

Time fallback_opens_at(const Policy& policy, Time eligible_time, bool after_failure) {
  if (after_failure) return eligible_time;
  return math::add(eligible_time, std::max<int64_t>(policy.fallback_delay_s, 0));
}

std::optional<Time> next_fallback_at(const PendingJob& job) {
  std::optional<Time> first;
  for (const LaterRequest& r : job.later) {
    if (!first || r.opens_at < *first) first = r.opens_at;
  }
  return first;
}

std::string fallback_note(const Policy& policy, const PendingJob& job, Time now) {
  const std::optional<Time> at = next_fallback_at(job);
  if (!at) return "";
  std::vector<std::string> names;
  for (const LaterRequest& r : job.later) {
    if (r.opens_at == *at && r.family < policy.family_count()) {
      names.push_back(policy.family(r.family).name);
    }
  }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ",") + name;
  return "; may start in family " + list + " in " + std::to_string(std::max<Time>(*at - now, 0)) +
         "s (FallbackDelay=" + std::to_string(policy.fallback_delay_s) + "s)";
}

std::string held_at_home(const Decision& home) {
  constexpr std::string_view kPrefix = "shareq: ";
  switch (home.verdict) {
    case Verdict::Wait:
      return home.words.starts_with(kPrefix) ? home.words.substr(kPrefix.size()) : home.words;
    case Verdict::Preempt:
      return "it is taking back capacity there";
    case Verdict::Start:
      break;
  }
  return home.no_room.empty() ? std::string("it fits by the numbers, waiting for a node with room")
                              : home.no_room;
}

std::string fallback_comment(const Policy& policy, FamilyId home, FamilyId to, int64_t waited_s,
                             const Decision& home_decision) {
  const auto name = [&](FamilyId f) {
    return f < policy.family_count() ? policy.family(f).name : std::string("?");
  };
  return "shareq: fell back from " + name(home) + " to " + name(to) + " after " +
         std::to_string(waited_s) + " s: family " + name(home) + ": " + held_at_home(home_decision);
}

}  // namespace shareq::policy
