// job_submit/shareq's translation layer: Slurm job fields <-> shareq::SubmitFlags / JobContext,
// and the accepted Submission written back. No policy here: shareq::validate_submission decides.
#include "submit_shim.h"
#include "submit_shim_internal.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "flags.hpp"
#include "job_tag.hpp"
#include "policy/job_record.hpp"
#include "submission.hpp"

// Not slurm_xlator.h: its `#define error slurm_error` would rename Result::error(). The shim
// needs only xstrdup/xfree/xrecalloc, which libslurmfull exports under these names.
extern "C" {
#include "slurm/slurm_errno.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
}

namespace {

// "NAME=" prefix match of one env entry; the value when it matches.
std::optional<const char*> value_if_named(const char* entry, std::string_view name) {
  if (entry == nullptr) {
    return std::nullopt;
  }
  const std::string_view e(entry);
  if (e.size() <= name.size() || e.compare(0, name.size(), name) != 0 || e[name.size()] != '=') {
    return std::nullopt;
  }
  return entry + name.size() + 1;
}

char* xstrdup_string(const std::string& s) { return xstrdup(s.c_str()); }

// A comma-separated list (the job's partitions, or accounts), else `fallback` (the default
// partition).
std::vector<std::string> split_list(const char* list, const char* fallback) {
  std::vector<std::string> parts;
  const std::string_view text = list != nullptr ? list : "";
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) {
      parts.emplace_back(text.substr(start, comma - start));
    }
    start = comma + 1;
  }
  if (parts.empty() && fallback != nullptr && fallback[0] != '\0') {
    parts.emplace_back(fallback);
  }
  return parts;
}

std::optional<std::string> flag(const shareq_job_fields_t& f, shareq_flag which) {
  const char* v = shareq_env_flag(*f.spank_env, *f.spank_env_size, which);
  if (v == nullptr) {
    return std::nullopt;
  }
  return std::string(v);
}

void set_error(char** err_msg, const std::string& message) {
  if (err_msg == nullptr) {
    return;
  }
  xfree(*err_msg);
  *err_msg = xstrdup_string("shareq: " + message);
}

void replace_string(char** field, const std::string& value) {
  xfree(*field);
  *field = xstrdup_string(value);
}

// Stores the accepted submission in the job.
void write_back(const shareq::Submission& s, const shareq_admission_t& a, bool share_given,
                shareq_job_fields_t& f) {
  const auto& names = shareq_flag_names;
  if (s.share.empty()) {
    shareq_env_unset(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_SHARE].env);
  } else {
    shareq_env_set(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_SHARE].env, s.share.c_str());
    // --share names the account to charge; without it the job keeps its own account (perhaps a
    // sub-account of its share, or an account in no share).
    if (a.set_account && share_given && f.account != nullptr) {
      replace_string(f.account, s.share);
    }
  }
  shareq_env_set(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_PRIORITY].env,
                 std::to_string(s.priority).c_str());
  if (s.image) {
    shareq_env_set(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_IMAGE].env,
                   s.image->to_string().c_str());
  } else {
    shareq_env_unset(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_IMAGE].env);
  }
  shareq_env_set(f.spank_env, f.spank_env_size, names[SHAREQ_FLAG_KEEP_ALIVE].env,
                 std::to_string(s.keep_alive_s).c_str());
  if (f.admin_comment != nullptr) {
    // An update rewrites the tag alone: the words after it (failed runs, preemptions, warm-pool
    // notes) are the job's history. A submission's AdminComment is the tag.
    std::string comment = shareq::encode_submission(s);
    if (!a.set_account && *f.admin_comment != nullptr) {
      comment += shareq::split_admin_comment(*f.admin_comment).history;
    }
    replace_string(f.admin_comment, comment);
  }
}

// The job's partitions, then its fallback families' (the tag names its home family).
void add_fallback_partitions(const shareq::Config& config, const shareq::Submission& s,
                             const shareq::JobContext& job, shareq_job_fields_t& f) {
  if (f.partition == nullptr) return;
  std::vector<std::string> all = job.partitions;
  const std::vector<std::string> added =
      shareq::fallback_partitions(config, s.share, job, /*fallback_wanted=*/true);
  all.insert(all.end(), added.begin(), added.end());
  std::string list;
  for (const std::string& name : all) list += (list.empty() ? "" : ",") + name;
  replace_string(f.partition, list);
}

// The home family the job's tag (the first word of its AdminComment) names; "" when none.
std::string tag_home(const shareq_job_fields_t& f) {
  if (f.admin_comment == nullptr || *f.admin_comment == nullptr) return "";
  const auto tag = shareq::policy::submission_tag(*f.admin_comment);
  return tag ? tag->home : "";
}

// " (from SHAREQ_X)" when a refused submission's value for `field` came from the SHAREQ_X
// variable rather than a command-line flag: Slurm adds _SLURM_SPANK_OPTION_shareq_<option> for a
// flag only (the SPANK plugin forwards both as SHAREQ_X), and a client without the SPANK plugin
// can set SHAREQ_X alone. "" for an update (the value is the job's own) and for a flag.
std::string variable_named(std::string_view field, const shareq_admission_t& a,
                           const shareq_job_fields_t& f) {
  if (!a.set_account) return "";
  for (const shareq_flag_name& names : shareq_flag_names) {
    if (field.size() != std::strlen(names.option) + 2 || field.substr(2) != names.option) continue;
    const bool from_variable =
        shareq_env_get(*f.spank_env, *f.spank_env_size, names.env) != nullptr &&
        shareq_env_get(*f.spank_env, *f.spank_env_size, names.slurm_env) == nullptr;
    return from_variable ? std::string(" (from ") + names.env + ")" : "";
  }
  return "";
}

int admit(const shareq_conf_t* conf, const shareq_admission_t& a, shareq_job_fields_t& f,
          char** err_msg) {
  shareq::SubmitFlags flags{flag(f, SHAREQ_FLAG_SHARE), flag(f, SHAREQ_FLAG_PRIORITY),
                            flag(f, SHAREQ_FLAG_IMAGE), flag(f, SHAREQ_FLAG_KEEP_ALIVE),
                            flag(f, SHAREQ_FLAG_FALLBACK)};
  if (a.share_follows_account) {
    flags.share.reset();
  }
  const bool any_flag =
      flags.share || flags.share_priority || flags.image || flags.keep_alive || flags.fallback;

  if (conf == nullptr) {
    if (!flags.share) {
      return SLURM_SUCCESS;
    }
    set_error(err_msg, std::string(shareq::kShareFlag) +
                           ": shareq.conf could not be loaded, so shares cannot be checked; jobs "
                           "with --share are refused until an administrator fixes it" +
                           variable_named(shareq::kShareFlag, a, f));
    return ESLURM_INVALID_ACCOUNT;
  }

  const shareq::JobContext job{a.account != nullptr ? a.account : "",
                               split_list(a.partitions, a.default_partition),
                               split_list(a.parent_accounts, nullptr)};
  // An update that keeps the job's partitions (f.partition is null only then): they include
  // those added for its fallback families, and its tag names its home family, which it keeps.
  shareq::Result<shareq::Submission> result =
      f.partition == nullptr ? shareq::validate_update(conf->config, flags, job, tag_home(f))
                             : shareq::validate_submission(conf->config, flags, job);
  if (!result) {
    set_error(err_msg, result.error().to_string() + variable_named(result.error().field, a, f));
    return result.error().field == shareq::kShareFlag ? ESLURM_INVALID_ACCOUNT : SLURM_ERROR;
  }
  const shareq::Submission& s = result.value();
  if (!s.share.empty() || any_flag) {
    write_back(s, a, flags.share.has_value(), f);
    if (!s.home.empty()) add_fallback_partitions(conf->config, s, job, f);
  } else if (f.admin_comment != nullptr && *f.admin_comment != nullptr &&
             std::strncmp(*f.admin_comment, "shareq ", 7) == 0) {
    // No longer a shareq job (moved to partitions shareq does not govern).
    xfree(*f.admin_comment);
  }
  return SLURM_SUCCESS;
}

}  // namespace

extern "C" {

shareq_conf_t* shareq_conf_parse(const char* text, const char* file, char** errors) {
  try {
    shareq::ParseResult parsed =
        shareq::parse_config(text != nullptr ? text : "", file != nullptr ? file : "shareq.conf");
    if (parsed.config) {
      return new shareq_conf{std::move(*parsed.config)};
    }
    if (errors != nullptr) {
      std::string all;
      for (const shareq::ConfigError& e : parsed.errors) {
        all += e.to_string() + "\n";
      }
      *errors = xstrdup_string(all);
    }
  } catch (...) {
    if (errors != nullptr) {
      *errors = xstrdup("shareq.conf: internal error while parsing");
    }
  }
  return nullptr;
}

void shareq_conf_free(shareq_conf_t* conf) { delete conf; }

const char* shareq_env_get(char* const* env, uint32_t size, const char* name) {
  if (env == nullptr || name == nullptr) {
    return nullptr;
  }
  for (uint32_t i = 0; i < size; ++i) {
    if (auto value = value_if_named(env[i], name)) {
      return *value;
    }
  }
  return nullptr;
}

void shareq_env_set(char*** env, uint32_t* size, const char* name, const char* value) {
  const std::string entry = std::string(name) + "=" + value;
  for (uint32_t i = 0; i < *size; ++i) {
    if (value_if_named((*env)[i], name)) {
      replace_string(&(*env)[i], entry);
      return;
    }
  }
  xrecalloc(*env, *size + 2, sizeof(char*));  // one more entry and the NULL terminator
  (*env)[*size] = xstrdup_string(entry);
  (*env)[*size + 1] = nullptr;
  ++*size;
}

void shareq_env_unset(char*** env, uint32_t* size, const char* name) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < *size; ++i) {
    if (value_if_named((*env)[i], name)) {
      xfree((*env)[i]);
    } else {
      (*env)[kept++] = (*env)[i];
    }
  }
  for (uint32_t i = kept; i < *size; ++i) {
    (*env)[i] = nullptr;
  }
  *size = kept;
}

const char* shareq_env_flag(char* const* env, uint32_t size, enum shareq_flag flag) {
  if (flag < 0 || flag >= SHAREQ_FLAG_COUNT) {
    return nullptr;
  }
  const char* value = shareq_env_get(env, size, shareq_flag_names[flag].env);
  return value != nullptr ? value : shareq_env_get(env, size, shareq_flag_names[flag].slurm_env);
}

int shareq_admit(const shareq_conf_t* conf, const shareq_admission_t* admission,
                 shareq_job_fields_t* fields, char** err_msg) {
  try {
    return admit(conf, *admission, *fields, err_msg);
  } catch (const std::exception& e) {
    set_error(err_msg, std::string("internal error: ") + e.what());
  } catch (...) {
    set_error(err_msg, "internal error");
  }
  return SLURM_ERROR;
}

}  // extern "C"
