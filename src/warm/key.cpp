#include "warm/key.hpp"

#include <algorithm>
#include <functional>

namespace shareq::warm {
namespace {

bool has(const std::vector<MatchField>& match, MatchField field) {
  return std::find(match.begin(), match.end(), field) != match.end();
}

struct Facts {
  const std::string& image;
  const std::string& account;
  const std::string& user;
  const std::string& partition;
  uint32_t nodes;
};

WarmPoolKey key_of(const std::vector<MatchField>& match, const Facts& facts) {
  WarmPoolKey key;
  if (has(match, MatchField::Image)) key.image = facts.image;
  if (has(match, MatchField::Account)) key.account = facts.account;
  if (has(match, MatchField::User)) key.user = facts.user;
  if (has(match, MatchField::Partition)) key.partition = facts.partition;
  if (has(match, MatchField::Nodes)) key.nodes = facts.nodes;
  return key;
}

void mix(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

void mix_optional(size_t& seed, const std::optional<std::string>& value) {
  mix(seed, value ? std::hash<std::string>{}(*value) : 0x51);
}

}  // namespace

bool keeps_warm(EndCause cause) {
  return cause == EndCause::Completed || cause == EndCause::Failed;
}

std::string WarmPoolKey::to_string() const {
  std::vector<std::string> parts;
  if (image)
    parts.push_back(image->empty() ? "image=none" : "image=sha256:" + image->substr(0, 12));
  if (account) parts.push_back("account=" + *account);
  if (user) parts.push_back("user=" + *user);
  if (partition) parts.push_back("partition=" + *partition);
  if (nodes) parts.push_back("nodes=" + std::to_string(*nodes));
  if (parts.empty()) return "any";
  std::string out = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) out += "," + parts[i];
  return out;
}

size_t WarmPoolKeyHash::operator()(const WarmPoolKey& key) const {
  size_t seed = 0;
  mix_optional(seed, key.image);
  mix_optional(seed, key.account);
  mix_optional(seed, key.user);
  mix_optional(seed, key.partition);
  mix(seed, key.nodes ? *key.nodes + 1 : 0);
  return seed;
}

WarmPoolKey make_key(const std::vector<MatchField>& match, const EndedJob& job) {
  return key_of(match, {job.image_digest, job.account, job.user, job.partition,
                        static_cast<uint32_t>(job.nodes.size())});
}

WarmPoolKey make_key(const std::vector<MatchField>& match, const JobToStart& job,
                     const std::string& partition) {
  return key_of(match, {job.image_digest, job.account, job.user, partition, job.node_count});
}

std::string match_fields_string(const std::vector<MatchField>& match) {
  static constexpr const char* kNames[] = {"image", "account", "user", "partition", "nodes"};
  std::string out;
  for (MatchField field : match) {
    if (!out.empty()) out += ',';
    out += kNames[static_cast<int>(field)];
  }
  return out;
}

}  // namespace shareq::warm
