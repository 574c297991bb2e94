// shareq.conf: the plain configuration value and its parser.
//
// Grammar (Slurm's Key=Value line syntax): one record per line, '#' starts a comment, keys are
// case-insensitive, values case-sensitive except share names (matched like Slurm account names,
// without regard to case). Lines:
//   Family=NAME Partitions=P[,P...] Capacity=node=N | Capacity=gres/gpu=N [Hardware=SPEC]
//          [Fallback=FAMILY[,FAMILY...]]
//   Share=NAME Family=NAME Quota=node=N|gres/gpu=N [BorrowLimit=LIMIT] [LendLimit=LIMIT]
//         [BorrowWeight=W]
//   Key=Value for the global settings below.
// LIMIT is an amount in the family's unit (node=N / gres/gpu=N), P% of the share's quota, or
// UNLIMITED (the default for both limits). SPEC: the node hardware the family expects
// (hardware_spec.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hardware_spec.hpp"

namespace shareq {

// What a family's capacity and its shares' quotas are counted in.
enum class Unit { Node, Gpu };
std::string_view unit_name(Unit unit);  // "node" or "gres/gpu"

// A borrow or lend limit.
struct Limit {
  enum class Kind { Unlimited, Amount, PercentOfQuota };
  Kind kind = Kind::Unlimited;
  int64_t value = 0;  // the amount in the family's unit, or the percentage

  // The limit in the family's unit for a share whose quota is `quota`.
  [[nodiscard]] int64_t resolve(int64_t quota) const;  // Unlimited -> INT64_MAX
  bool operator==(const Limit&) const = default;
};

// A capacity pool: one or more partitions of like nodes.
struct Family {
  std::string name;
  std::vector<std::string> partitions;
  Unit unit = Unit::Node;
  int64_t capacity = 0;
  int line = 0;  // where it was defined, for messages
  // Hardware=; empty: the family's nodes' hardware is not checked. Last, so that the brace
  // initialisers of the fields above keep their meaning.
  HardwareSpec hardware{};
  // Fallback=: the compatible families, in order, where a job of this family may start once it
  // waited FallbackDelay (or at once after a node or prolog failure). Not transitive.
  std::vector<std::string> fallback{};
};

inline constexpr int64_t kBorrowWeightScale = 1000;  // BorrowWeight=1

// One Share= line: a share's quota in one family.
struct ShareQuota {
  std::string share;   // as written in shareq.conf
  std::string family;  // a Family::name
  int64_t quota = 0;   // in the family's unit
  Limit borrow_limit;
  Limit lend_limit;
  int line = 0;
  // BorrowWeight=, in thousandths: among borrowers, shares are ranked by decayed usage / (quota x
  // weight), so a share of weight 4 borrows ahead of one of weight 1 until its usage relative to
  // its quota is four times as large.
  int64_t borrow_weight = kBorrowWeightScale;
};

enum class WarmPoolMode { Prefer, Reserve };
// How borrowers are ordered (BorrowOrder): by fair share (decayed usage relative to quota and
// BorrowWeight), or the largest job first (by size class), then by fair share.
enum class BorrowOrder { FairShare, Largest };
// What happens to a job whose account is under no share (UnlistedAccounts): it runs as a
// borrower of the implicit share kUnlistedShare, or it is refused at submission.
enum class UnlistedAccounts { Borrow, Refuse };

// The implicit share of jobs whose account is under no listed share (UnlistedAccounts=borrow):
// quota 0 in every family. Its parentheses are outside a share name's characters, so no
// Share= line or Slurm account can take the name.
inline constexpr std::string_view kUnlistedShare = "(unlisted)";
enum class MatchField { Image, Account, User, Partition, Nodes };

struct Config {
  std::string file;  // the file it was read from, for messages
  std::vector<Family> families;
  std::vector<ShareQuota> shares;

  int default_priority = 50;                          // DefaultPriority, 0..99
  bool in_share_preemption = true;                    // InSharePreemption
  int64_t reclaim_min_runtime_s = 600;                // ReclaimMinRuntime
  int64_t reclaim_after_s = 60;                       // ReclaimAfter
  BorrowOrder borrow_order = BorrowOrder::FairShare;  // BorrowOrder
  int64_t preempt_grace_time_s = 0;                   // PreemptGraceTime
  int64_t max_keep_alive_s = 3600;                    // MaxKeepAlive
  int64_t max_warm_pool_lifetime_s =
      int64_t{28} * 86400;  // MaxWarmPoolLifetime (accepts s/m/h/d suffix)
  WarmPoolMode warm_pool_mode = WarmPoolMode::Prefer;             // WarmPoolMode
  UnlistedAccounts unlisted_accounts = UnlistedAccounts::Borrow;  // UnlistedAccounts
  int64_t fallback_delay_s = 300;                                 // FallbackDelay
  int max_fallback_requeues = 3;                                  // MaxFallbackRequeues
  std::vector<MatchField> warm_pool_match = {MatchField::Image, MatchField::Account,
                                             MatchField::User, MatchField::Partition,
                                             MatchField::Nodes};  // WarmPoolMatch
  std::string image_store;  // ImageStore: a directory or an http(s):// URL
  std::string image_cache_dir = "/var/cache/shareq/images";  // ImageCacheDir
  int64_t image_cache_size_bytes = 200LL << 30;              // ImageCacheSize (K/M/G/T suffix)
  // ImageFetchTimeout (s/m/h/d suffix, 1s..1d): the most a job prolog spends getting the job's
  // image onto the node (asking the store, waiting for another job's fetch of it, fetching).
  int64_t image_fetch_timeout_s = 1800;
  // ImageCacheMetricsFile: the node's textfile for prometheus-node-exporter ("%n" = node
  // name); empty = no metrics file.
  std::string image_cache_metrics_file;

  // Lookups; names compare as documented above. nullptr / empty when there is none.
  [[nodiscard]] const Family* find_family(std::string_view name) const;
  [[nodiscard]] const Family* family_of_partition(std::string_view partition) const;
  [[nodiscard]] const ShareQuota* find_quota(std::string_view share, std::string_view family) const;
  [[nodiscard]] bool has_share(std::string_view share) const;

  // Every share name, lower-case, sorted, each once; those with a Share= line in `family`.
  [[nodiscard]] std::vector<std::string> share_names() const;
  [[nodiscard]] std::vector<std::string> share_names_in(std::string_view family) const;
};

// True when both configurations have the same settings, families and shares in the same order;
// Config::file and the line numbers are ignored (format_config's output parses back equivalent).
bool equivalent(const Config& a, const Config& b);

// One problem in a file: "FILE:LINE: KEY: MESSAGE".
struct ConfigError {
  std::string file;
  int line = 0;  // 0 when the problem is not on one line
  std::string key;
  std::string message;
  // "FILE:LINE: KEY: MESSAGE"; ":LINE" is left out when line is 0 and "KEY: " when key is empty.
  [[nodiscard]] std::string to_string() const;
};

struct ParseResult {
  std::optional<Config> config;     // set exactly when errors is empty
  std::vector<ConfigError> errors;  // every problem found, in file order
};

// Parses the text of a shareq.conf. `file` only labels messages. Never throws.
ParseResult parse_config(std::string_view text, std::string_view file);

// The most of a shareq.conf that is read: slurmctld reads it under its locks, so the read is
// bounded (a real file is a few KiB).
inline constexpr size_t kMaxConfigFileBytes = size_t{4} << 20;

// The text of a file, or the one ConfigError (line 0) that says why it cannot be had: it cannot
// be read, it is not a regular file (a FIFO, a device, a directory: refused before any read, so
// that nothing waits on a writer), or it is larger than kMaxConfigFileBytes.
std::variant<std::string, ConfigError> read_config_text(const std::string& path);

// The same from an open descriptor (check-config's "-", standard input: a pipe is fine there),
// with the same size limit; takes `fd` over and closes it. `label` names it in the error.
std::variant<std::string, ConfigError> read_config_fd(int fd, const std::string& label);

// Parses what read_config_text gave: the text, or the one error that says why there is none.
ParseResult parse_config_text(const std::variant<std::string, ConfigError>& text,
                              std::string_view file);

// Reads and parses a file; an unreadable file is one ConfigError with line 0.
ParseResult load_config_file(const std::string& path);

// Where shareq.conf lives: beside slurm.conf ("/etc/slurm/slurm.conf" ->
// "/etc/slurm/shareq.conf"; a bare "slurm.conf" -> "./shareq.conf").
std::string shareq_conf_beside(const std::string& slurm_conf_path);

// The configuration in shareq.conf syntax, every setting explicit (what check-config prints).
std::string format_config(const Config& config);

// What is allowed but likely not meant, one sentence each (check-config prints them as warnings):
// a share with a quota in a family but none in one of its Fallback= families (its jobs do not
// fall back there).
std::vector<std::string> config_warnings(const Config& config);

// Lower-cases an ASCII name, as Slurm stores account names.
std::string to_lower(std::string_view name);

}  // namespace shareq
