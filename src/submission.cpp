// validate_submission: a job's flags checked against shareq.conf, as job_submit/shareq does.
#include "submission.hpp"

#include <algorithm>

#include "text.hpp"

namespace shareq {
namespace {

Error share_error(std::string message) {
  return Error{std::string(kShareFlag), std::move(message)};
}

std::string list_or_none(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : text::join(names);
}

std::vector<std::string> governed_partitions(const Config& config) {
  std::vector<std::string> partitions;
  for (const Family& family : config.families) {
    partitions.insert(partitions.end(), family.partitions.begin(), family.partitions.end());
  }
  return partitions;
}

// The nearest of the account and its parents that is a share, lower-case; nullopt when none is.
std::optional<std::string> nearest_share(const Config& config, const JobContext& job) {
  if (config.has_share(job.account)) return to_lower(job.account);
  for (const std::string& parent : job.parent_accounts) {
    if (config.has_share(parent)) return to_lower(parent);
  }
  return std::nullopt;
}

Error unlisted_account_error(const Config& config, const JobContext& job) {
  std::string above;
  if (!job.parent_accounts.empty()) {
    above = " nor any account above it (" + text::join(job.parent_accounts) + ")";
  }
  return share_error("no share " + text::quote(to_lower(job.account)) + " in shareq.conf" + above +
                     ", and UnlistedAccounts=refuse: the job's account must be under a share "
                     "(use --share to choose one); shares: " +
                     list_or_none(config.share_names()));
}

// The job's share name, lower-case: --share, else the account's nearest share, else the
// implicit unlisted share when UnlistedAccounts=borrow.
Result<std::string> choose_share(const Config& config, const SubmitFlags& flags,
                                 const JobContext& job) {
  if (!flags.share && job.account.empty()) {
    return share_error("the job has no --share and no account; shares: " +
                       list_or_none(config.share_names()));
  }
  if (!flags.share) {
    if (std::optional<std::string> share = nearest_share(config, job)) return *share;
    if (config.unlisted_accounts == UnlistedAccounts::Borrow) {
      return std::string(kUnlistedShare);
    }
    return unlisted_account_error(config, job);
  }
  Result<std::string> name = parse_share_name(*flags.share);
  if (!name) {
    return name;
  }
  if (!config.has_share(name.value())) {
    return share_error("no share " + text::quote(name.value()) +
                       " in shareq.conf; shares: " + list_or_none(config.share_names()));
  }
  return name;
}

// Checks that `share` has a quota in the family of each governed partition of the job.
std::optional<Error> check_quotas(const Config& config, const std::string& share,
                                  const JobContext& job) {
  if (share == kUnlistedShare) return std::nullopt;  // a borrower everywhere, with no quota
  for (const std::string& partition : job.partitions) {
    const Family* family = config.family_of_partition(partition);
    if (family == nullptr || config.find_quota(share, family->name) != nullptr) {
      continue;
    }
    return share_error("share " + text::quote(share) + " has no quota in family " + family->name +
                       " (partition " + partition + "); shares in " + family->name + ": " +
                       list_or_none(config.share_names_in(family->name)));
  }
  return std::nullopt;
}

// The share for the job, "" when shareq governs none of its partitions.
Result<std::string> resolve_share(const Config& config, const SubmitFlags& flags,
                                  const JobContext& job) {
  bool governed = false;
  for (const std::string& partition : job.partitions) {
    governed = governed || config.family_of_partition(partition) != nullptr;
  }
  if (!governed) {
    if (!flags.share) {
      return std::string();
    }
    return share_error("shareq governs none of the job's partitions (" +
                       list_or_none(job.partitions) +
                       "), so --share means nothing there; partitions with shares: " +
                       list_or_none(governed_partitions(config)));
  }
  Result<std::string> share = choose_share(config, flags, job);
  if (!share) {
    return share;
  }
  if (auto error = check_quotas(config, share.value(), job)) {
    return *error;
  }
  return share;
}

// The one family of the job's governed partitions; nullptr when there is none or several.
const Family* home_family(const Config& config, const JobContext& job) {
  const Family* home = nullptr;
  for (const std::string& partition : job.partitions) {
    const Family* family = config.family_of_partition(partition);
    if (family == nullptr) continue;
    if (home != nullptr && home != family) return nullptr;
    home = family;
  }
  return home;
}

}  // namespace

std::vector<std::string> fallback_partitions(const Config& config, const std::string& share,
                                             const JobContext& job, bool fallback_wanted) {
  std::vector<std::string> added;
  const Family* home = fallback_wanted && !share.empty() ? home_family(config, job) : nullptr;
  if (home == nullptr) return added;
  for (const std::string& name : home->fallback) {
    const Family* family = config.find_family(name);
    if (family == nullptr ||
        (share != kUnlistedShare && config.find_quota(share, family->name) == nullptr)) {
      continue;
    }
    for (const std::string& partition : family->partitions) {
      const bool listed = std::find(job.partitions.begin(), job.partitions.end(), partition) !=
                              job.partitions.end() ||
                          std::find(added.begin(), added.end(), partition) != added.end();
      if (!listed) added.push_back(partition);
    }
  }
  return added;
}

Result<Submission> validate_submission(const Config& config, const SubmitFlags& flags,
                                       const JobContext& job) {
  Submission submission;
  Result<std::string> share = resolve_share(config, flags, job);
  if (!share) {
    return share.error();
  }
  submission.share = share.value();
  submission.priority = config.default_priority;
  if (flags.share_priority) {
    Result<int> priority = parse_share_priority(*flags.share_priority);
    if (!priority) {
      return priority.error();
    }
    submission.priority = priority.value();
  }
  if (flags.image) {
    Result<ImageRef> image = parse_image_ref(*flags.image);
    if (!image) {
      return image.error();
    }
    submission.image = image.value();
  }
  if (flags.keep_alive) {
    Result<int64_t> keep_alive = parse_keep_alive(*flags.keep_alive, config.max_keep_alive_s);
    if (!keep_alive) {
      return keep_alive.error();
    }
    submission.keep_alive_s = keep_alive.value();
  }
  bool fallback_wanted = true;
  if (flags.fallback) {
    Result<bool> choice = parse_fallback_choice(*flags.fallback);
    if (!choice) {
      return choice.error();
    }
    fallback_wanted = choice.value();
  }
  if (!fallback_partitions(config, submission.share, job, fallback_wanted).empty()) {
    submission.home = home_family(config, job)->name;
  }
  return submission;
}

Result<Submission> validate_update(const Config& config, const SubmitFlags& flags,
                                   const JobContext& job, const std::string& home) {
  const Family* family = home.empty() ? nullptr : config.find_family(home);
  if (family == nullptr) return validate_submission(config, flags, job);
  JobContext own = job;
  std::erase_if(own.partitions, [&](const std::string& partition) {
    const Family* of = config.family_of_partition(partition);
    return of != nullptr && std::find(family->fallback.begin(), family->fallback.end(), of->name) !=
                                family->fallback.end();
  });
  Result<Submission> checked = validate_submission(config, flags, own);
  if (!checked) return checked;
  Submission submission = std::move(checked).value();
  if (!submission.share.empty()) submission.home = family->name;
  return submission;
}

}  // namespace shareq
