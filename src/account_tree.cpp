#include "account_tree.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "text.hpp"

namespace shareq {

std::vector<std::string> account_tree_notes(const Config& config,
                                            const std::vector<AccountParent>& tree) {
  std::map<std::string, std::string> parent_of;
  for (const auto& [account, parent] : tree) parent_of[to_lower(account)] = to_lower(parent);
  std::vector<std::string> notes;
  for (const std::string& share : config.share_names()) {
    if (!parent_of.contains(share)) {
      std::string note = "share ";
      note += share;
      note += " is no account in Slurm's association tree: no job runs under it until ";
      note += "`sacctmgr add account ";
      note += share;
      note += '`';
      notes.push_back(std::move(note));
      continue;
    }
    std::vector<std::string> path = {share};
    std::set<std::string> seen = {share};
    for (std::string up = parent_of[share]; !up.empty() && seen.insert(up).second;
         up = parent_of.contains(up) ? parent_of[up] : "") {
      path.push_back(up);
      if (!config.has_share(up)) continue;
      std::string note = "share ";
      note += share;
      note += " is below share ";
      note += up;
      note += "'s account (";
      note += text::join(path, " -> ");
      note += "): it is its own share, and ";
      note += up;
      note += "'s quota does not cover its jobs (the nearest listed account wins)";
      notes.push_back(std::move(note));
      break;
    }
  }
  std::sort(notes.begin(), notes.end());
  return notes;
}

}  // namespace shareq
