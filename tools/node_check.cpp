#include "node_check.hpp"

#include <algorithm>

#include "text.hpp"

namespace shareq::tool {
namespace {

constexpr std::string_view kPrefix = "shareq: hardware: ";

std::vector<std::string> names_of(const std::vector<const Family*>& families) {
  std::vector<std::string> names;
  names.reserve(families.size());
  for (const Family* family : families) names.push_back(family->name);
  return names;
}

}  // namespace

Result<std::vector<const Family*>> families_to_check(const Config& config,
                                                     const std::optional<std::string>& family,
                                                     const std::vector<std::string>& partitions) {
  std::vector<const Family*> out;
  if (family) {
    const Family* found = config.find_family(*family);
    if (found == nullptr) {
      std::vector<std::string> all;
      for (const Family& f : config.families) all.push_back(f.name);
      return Error{"--family", "no family " + text::quote(*family) + " in " + config.file +
                                   "; families: " + (all.empty() ? "none" : text::join(all))};
    }
    out.push_back(found);
    return out;
  }
  for (const Family& f : config.families) {
    const bool of_node = std::any_of(f.partitions.begin(), f.partitions.end(), [&](const auto& p) {
      return std::find(partitions.begin(), partitions.end(), p) != partitions.end();
    });
    if (of_node) out.push_back(&f);
  }
  return out;
}

std::vector<const Family*> families_with_hardware(const std::vector<const Family*>& families) {
  std::vector<const Family*> out;
  std::copy_if(families.begin(), families.end(), std::back_inserter(out),
               [](const Family* f) { return !f->hardware.empty(); });
  return out;
}

NodeCheckVerdict nothing_to_check(const std::vector<const Family*>& families,
                                  std::string_view node) {
  if (families.empty()) {
    return {true, std::string(kPrefix) + "ok: nothing to check (node " + std::string(node) +
                      " is in no shareq family)"};
  }
  return {true, std::string(kPrefix) + "ok: nothing to check (" +
                    (families.size() == 1 ? "family " : "families ") +
                    text::join(names_of(families)) + ": no Hardware=)"};
}

NodeCheckVerdict judge_hardware(const std::vector<const Family*>& families,
                                const HardwareFacts& facts) {
  const std::vector<const Family*> checked = families_with_hardware(families);
  std::vector<std::string> mismatches;
  for (const Family* family : checked) {
    for (std::string& m : hardware_mismatches(facts, family->hardware, family->name)) {
      mismatches.push_back(std::move(m));
    }
  }
  if (!mismatches.empty()) {
    return {false, std::string(kPrefix) + text::join(mismatches, "; ")};
  }
  return {true, std::string(kPrefix) + "ok: " + describe_hardware(facts) + ", as " +
                    (checked.size() == 1 ? "family " : "families ") +
                    text::join(names_of(checked)) + (checked.size() == 1 ? " expects" : " expect")};
}

NodeCheckVerdict topology_failure(const Error& error) {
  return {false, std::string(kPrefix) + "cannot check: " + error.to_string()};
}

}  // namespace shareq::tool
