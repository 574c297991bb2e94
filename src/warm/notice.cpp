#include "warm/notice.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

namespace shareq::warm {
namespace {

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string image_words(const std::string& digest, std::string_view name) {
  if (digest.empty()) return "no image";
  const std::string short_digest = "sha256:" + digest.substr(0, 12);
  if (name.empty()) return "image " + short_digest;
  return "image " + std::string(name) + " (" + short_digest + ")";
}

// What a matching job must have in common with the pool's job, in WarmPoolMatch's terms.
std::string match_words(const WarmPoolKey& key, std::string_view image_name) {
  std::vector<std::string> parts;
  if (key.user) parts.push_back("user " + *key.user);
  if (key.account) parts.push_back("share " + *key.account);
  if (key.image) parts.push_back(image_words(*key.image, image_name));
  if (key.partition) parts.push_back("partition " + *key.partition);
  if (key.nodes) parts.push_back("node count " + std::to_string(*key.nodes));
  if (parts.empty()) return "any job reuses them (WarmPoolMatch names no field)";
  return "a job reuses them when it has the same " + joined(parts, ", ");
}

}  // namespace

std::string iso_time_with_offset(Time at, int64_t utc_offset_s) {
  // gmtime_r of the shifted time: the local wall clock, without reading the process's zone.
  const auto shifted = static_cast<time_t>(at + utc_offset_s);
  struct tm tm {};
  gmtime_r(&shifted, &tm);
  char wall[32];
  std::strftime(wall, sizeof wall, "%Y-%m-%dT%H:%M:%S", &tm);
  const int64_t magnitude = utc_offset_s < 0 ? -utc_offset_s : utc_offset_s;
  char offset[48];
  std::snprintf(offset, sizeof offset, "%c%02lld:%02lld", utc_offset_s < 0 ? '-' : '+',
                static_cast<long long>(magnitude / 3600),
                static_cast<long long>(magnitude % 3600 / 60));
  return std::string(wall) + offset;
}

std::string pool_notice(const WarmPool& pool, JobId job, std::string_view image_name, Time now,
                        int64_t utc_offset_s) {
  const int64_t left = std::max<int64_t>(pool.expires_at - now, 0);
  return "shareq: job " + std::to_string(job) + " left its nodes warm as " + pool.name() + ": " +
         joined(pool.nodes, ",") + " (partition " + pool.partition + ") until " +
         iso_time_with_offset(pool.expires_at, utc_offset_s) + " (in " + std::to_string(left) +
         " s); " + match_words(pool.key, image_name);
}

}  // namespace shareq::warm
