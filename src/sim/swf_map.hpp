// The SWF map file: which share (and partition, and --share-priority) each SWF job runs under.
// shareq.conf's Key=Value line syntax, '#' comments, keys case-insensitive:
//
//   Map=user:ID|group:ID|queue:ID Share=NAME [Priority=N] [Partition=NAME]
//   Default Share=NAME Partition=NAME [Priority=N]
//
// e.g. "Map=group:239 Share=climate Priority=80". ID is the SWF field's integer (user field 12,
// group 13, queue 15). A job takes the first Map= line, in file order, that matches it, else the
// Default line; Partition and Priority left out of a Map= line come from Default (Priority: else
// shareq.conf's DefaultPriority). Exactly one Default line. Errors name the line and the key.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/input_error.hpp"

namespace shareq::sim {

enum class SwfField { User, Group, Queue };

struct SwfTarget {
  std::string share;
  std::string partition;        // empty on a Map= line without Partition=
  std::optional<int> priority;  // 0..99
  int line = 0;
};

struct SwfRule {
  SwfField field = SwfField::User;
  int64_t id = 0;
  SwfTarget target;
};

struct SwfMap {
  std::vector<SwfRule> rules;  // in file order
  SwfTarget fallback;          // the Default line

  // The target for a job (partition and priority filled from Default where the rule has none).
  [[nodiscard]] SwfTarget lookup(int64_t user, int64_t group, int64_t queue) const;

  void index();  // builds the lookup tables; parse_swf_map calls it

 private:
  std::array<std::unordered_map<int64_t, size_t>, 3> first_;  // [SwfField] id -> first rule
};

Parsed<SwfMap> parse_swf_map(std::string_view text, std::string_view file);

}  // namespace shareq::sim
