// A warm pool's match key: the fields of WarmPoolMatch taken from a job. Two jobs with equal keys
// may share a pool; fields not named in WarmPoolMatch are left out (they match anything).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "warm/jobs.hpp"

namespace shareq::warm {

struct WarmPoolKey {
  std::optional<std::string> image;      // image digest ("" = no image), when matched on image
  std::optional<std::string> account;    // when matched on account
  std::optional<std::string> user;       // when matched on user
  std::optional<std::string> partition;  // when matched on partition
  std::optional<uint32_t> nodes;         // node count, when matched on nodes

  bool operator==(const WarmPoolKey&) const = default;

  // For people and logs, e.g. "image=sha256:0a1b2c3d4e5f,account=prodexp1,user=alice,
  // partition=p4,nodes=2" (the digest cut to 12 hex digits, "image=none" without an image);
  // fields left out are not shown ("any" when none is matched). Not unique: never parse it.
  [[nodiscard]] std::string to_string() const;
};

struct WarmPoolKeyHash {
  size_t operator()(const WarmPoolKey& key) const;
};

// The key of an ended job, and of a pending job for one of its partitions.
WarmPoolKey make_key(const std::vector<MatchField>& match, const EndedJob& job);
WarmPoolKey make_key(const std::vector<MatchField>& match, const JobToStart& job,
                     const std::string& partition);

// "image,account,user,partition,nodes" (WarmPoolMatch's own spelling), in the order given.
std::string match_fields_string(const std::vector<MatchField>& match);

}  // namespace shareq::warm
