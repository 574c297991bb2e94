#include "sim/swf_map.hpp"

#include <algorithm>

#include "sim/slurm_conf.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

constexpr std::string_view kMapSyntax =
    "allowed: Map=user:ID|group:ID|queue:ID Share=NAME [Priority=N] [Partition=NAME], or "
    "Default Share=NAME Partition=NAME [Priority=N]";

class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  void line(std::string_view text, int number) {
    line_ = number;
    const auto words = split_words(strip_comment(text));
    if (words.empty()) return;
    const bool is_default = text::iequals(words[0], "Default");
    default_seen_ = default_seen_ || is_default;
    SwfRule rule;
    rule.target.line = number;
    if (!is_default && !map_key(words[0], rule)) return;
    for (size_t i = 1; i < words.size(); ++i) {
      if (!setting(words[i], rule.target)) return;
    }
    if (rule.target.share.empty()) return error("Share", "missing; every line names its share");
    if (is_default) return set_default(std::move(rule.target));
    map_.rules.push_back(std::move(rule));
  }

  Parsed<SwfMap> finish() {
    if (!default_seen_)
      error_at(0, "Default", "no Default line; add Default Share=NAME Partition=NAME");
    Parsed<SwfMap> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) {
      map_.index();
      out.value = std::move(map_);
    }
    return out;
  }

 private:
  void error_at(int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({std::string(file_), line, std::move(field), std::move(message)});
    }
  }
  void error(std::string field, std::string message) {
    error_at(line_, std::move(field), std::move(message));
  }

  bool map_key(std::string_view word, SwfRule& rule) {
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos || !text::iequals(word.substr(0, eq), "Map")) {
      error("", text::quote(word) + " does not start a Map= or Default line; " +
                    std::string(kMapSyntax));
      return false;
    }
    const std::string_view value = word.substr(eq + 1);
    const size_t colon = value.find(':');
    const std::string_view kind = value.substr(0, colon);
    if (text::iequals(kind, "user"))
      rule.field = SwfField::User;
    else if (text::iequals(kind, "group"))
      rule.field = SwfField::Group;
    else if (text::iequals(kind, "queue"))
      rule.field = SwfField::Queue;
    else {
      error("Map", text::quote(value) + " names no field; allowed: user:ID, group:ID, queue:ID");
      return false;
    }
    const auto id =
        colon == std::string_view::npos ? std::nullopt : signed_decimal(value.substr(colon + 1));
    if (!id || *id < -1) {
      error("Map", text::quote(value) + ": the ID is " + (id ? "below -1" : "not an integer") +
                       "; allowed: user:ID, group:ID, queue:ID with ID an integer (-1 and up)");
      return false;
    }
    rule.id = *id;
    return true;
  }

  bool setting(std::string_view word, SwfTarget& target) {
    const size_t eq = word.find('=');
    const std::string_view key = word.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : word.substr(eq + 1);
    if (eq == std::string_view::npos || value.empty()) {
      error(std::string(key), "needs a value (KEY=VALUE)");
      return false;
    }
    if (text::iequals(key, "Share"))
      target.share = std::string(value);
    else if (text::iequals(key, "Partition"))
      target.partition = std::string(value);
    else if (text::iequals(key, "Priority"))
      return priority(value, target);
    else {
      error(std::string(key), "unknown key; allowed: Share, Partition, Priority");
      return false;
    }
    return true;
  }

  bool priority(std::string_view value, SwfTarget& target) {
    const auto parsed = text::parse_decimal(value, 99);
    if (parsed.status != text::NumberStatus::Ok) {
      error("Priority", text::number_message(value, parsed, "0..99"));
      return false;
    }
    target.priority = static_cast<int>(parsed.value);
    return true;
  }

  void set_default(SwfTarget target) {
    if (has_default_) {
      return error("Default", "a second Default line (the first is on line " +
                                  std::to_string(map_.fallback.line) + ")");
    }
    if (target.partition.empty()) return error("Partition", "missing; Default needs a Partition");
    has_default_ = true;
    map_.fallback = std::move(target);
  }

  std::string_view file_;
  int line_ = 0;
  bool has_default_ = false;   // a Default line was read
  bool default_seen_ = false;  // a line starts with Default (said once, even when it is wrong)
  SwfMap map_;
  std::vector<InputError> errors_;
};

}  // namespace

void SwfMap::index() {
  for (auto& table : first_) table.clear();
  for (size_t i = 0; i < rules.size(); ++i) {
    first_[static_cast<int>(rules[i].field)].emplace(rules[i].id, i);
  }
}

SwfTarget SwfMap::lookup(int64_t user, int64_t group, int64_t queue) const {
  size_t best = rules.size();
  const int64_t ids[3] = {user, group, queue};
  for (int f = 0; f < 3; ++f) {
    const auto found = first_[f].find(ids[f]);
    if (found != first_[f].end()) best = std::min(best, found->second);
  }
  if (best == rules.size()) return fallback;
  SwfTarget target = rules[best].target;
  if (target.partition.empty()) target.partition = fallback.partition;
  if (!target.priority) target.priority = fallback.priority;
  return target;
}

Parsed<SwfMap> parse_swf_map(std::string_view text, std::string_view file) {
  Reader reader(file);
  int number = 0;
  for (std::string_view line : split_lines(text)) reader.line(line, ++number);
  return reader.finish();
}

}  // namespace shareq::sim
