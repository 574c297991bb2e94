#include "warm/state_format.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <span>

#include "text.hpp"
#include "warm/digest_file.hpp"

namespace shareq::warm {
namespace {

constexpr std::string_view kHeader = "shareq-warm-pools ";
constexpr std::array<std::string_view, 14> kPoolKeys = {
    "id",  "status",  "created",   "expires", "origin", "reused", "user",
    "uid", "account", "partition", "image",   "nodes",  "match",  "dir"};
constexpr std::array<std::string_view, 3> kEndedKeys = {"node", "name", "until"};
constexpr std::array<std::string_view, 5> kMatchNames = {"image", "account", "user", "partition",
                                                         "nodes"};

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_.:/@+-").find(c) != std::string_view::npos;
}

std::string encode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : value) {
    if (is_plain(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

std::string join_encoded(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ',';
    out += encode(item);
  }
  return out;
}

std::string join_numbers(const std::vector<JobId>& ids) {
  std::string out;
  for (JobId id : ids) {
    if (!out.empty()) out += ',';
    out += std::to_string(id);
  }
  return out;
}

std::string format_pool(const WarmPool& pool) {
  std::string out = "pool id=" + std::to_string(pool.id);
  out += " status=" + std::string(status_name(pool.status));
  out += " created=" + std::to_string(pool.created);
  out += " expires=" + std::to_string(pool.expires_at);
  out += " origin=" + std::to_string(pool.origin_job);
  out += " reused=" + join_numbers(pool.reused_by);
  out += " user=" + encode(pool.user);
  out += " uid=" + std::to_string(pool.uid);
  out += " account=" + encode(pool.account);
  out += " partition=" + encode(pool.partition);
  out += " image=" + encode(pool.image_digest);
  out += " nodes=" + join_encoded(pool.nodes);
  out += " match=" + match_fields_string(pool.match);
  out += " dir=" + encode(pool.warm_dir);
  return out + "\n";
}

std::string format_ended(const EndedEarly& ended) {
  std::string out;
  for (const auto& [node, names] : ended) {
    for (const auto& [name, until] : names) {
      out += "ended node=" + encode(node) + " name=" + encode(name) +
             " until=" + std::to_string(until) + "\n";
    }
  }
  return out;
}

// ---- parsing: every helper returns an Error message without the "line N: " prefix ----

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> decode(std::string_view key, std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      if (!is_plain(value[i])) {
        return Error{"", std::string(key) + ": unexpected character " +
                             text::first_bad_char(value.substr(i, 1), "")};
      }
      out += value[i];
      continue;
    }
    if (i + 2 >= value.size()) return Error{"", std::string(key) + ": truncated %-escape"};
    const int high = hex_value(value[i + 1]);
    const int low = hex_value(value[i + 2]);
    if (high < 0 || low < 0) return Error{"", std::string(key) + ": bad %-escape"};
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

template <typename T>
Result<T> number(std::string_view key, std::string_view value, uint64_t max) {
  const text::Number parsed = text::parse_decimal(value, max);
  if (parsed.status != text::NumberStatus::Ok) {
    return Error{"", std::string(key) + ": " +
                         text::number_message(value, parsed, "0.." + std::to_string(max))};
  }
  return static_cast<T>(parsed.value);
}

Result<std::vector<std::string>> name_list(std::string_view key, std::string_view value) {
  std::vector<std::string> names;
  if (value.empty()) return names;
  for (std::string_view piece : text::split(value, ',')) {
    Result<std::string> name = decode(key, piece);
    if (!name) return name.error();
    if (name.value().empty()) return Error{"", std::string(key) + ": empty name in list"};
    names.push_back(std::move(name).value());
  }
  return names;
}

Result<std::vector<JobId>> job_list(std::string_view key, std::string_view value) {
  std::vector<JobId> ids;
  if (value.empty()) return ids;
  for (std::string_view piece : text::split(value, ',')) {
    Result<JobId> id = number<JobId>(key, piece, UINT32_MAX);
    if (!id) return id.error();
    ids.push_back(id.value());
  }
  return ids;
}

Result<std::vector<MatchField>> match_list(std::string_view value) {
  std::vector<MatchField> fields;
  if (value.empty()) return fields;
  for (std::string_view piece : text::split(value, ',')) {
    auto it = std::find(kMatchNames.begin(), kMatchNames.end(), piece);
    if (it == kMatchNames.end()) return Error{"", "match: unknown field " + text::quote(piece)};
    const auto field = static_cast<MatchField>(it - kMatchNames.begin());
    if (std::find(fields.begin(), fields.end(), field) != fields.end()) {
      return Error{"", "match: " + std::string(piece) + " appears twice"};
    }
    fields.push_back(field);
  }
  return fields;
}

// A warm directory: absolute, ending in "/wp-ID", no empty, "." or ".." component.
Result<bool> check_dir(std::string_view dir, PoolId id) {
  const std::string suffix = "/wp-" + std::to_string(id);
  const bool tail_ok =
      dir.size() > suffix.size() && dir.substr(dir.size() - suffix.size()) == suffix;
  if (dir.empty() || dir.front() != '/' || !tail_ok) {
    return Error{"", "dir: " + text::quote(dir) + " is not an absolute path ending in " + suffix};
  }
  const std::vector<std::string_view> parts = text::split(dir.substr(1), '/');
  for (std::string_view part : parts) {
    if (part.empty() || part == "." || part == "..") {
      return Error{"", "dir: " + text::quote(dir) + " has an empty, \".\" or \"..\" component"};
    }
  }
  return true;
}

using Fields = std::map<std::string_view, std::string_view>;

// The fields of one record, which must have exactly `keys`, each once.
Result<Fields> split_fields(std::string_view line, std::span<const std::string_view> keys) {
  Fields fields;
  for (std::string_view token : text::split(line, ' ')) {
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos) return Error{"", text::quote(token) + " is not key=value"};
    const std::string_view key = token.substr(0, eq);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return Error{"", "unknown key " + text::quote(key)};
    }
    if (!fields.emplace(key, token.substr(eq + 1)).second) {
      return Error{"", std::string(key) + ": appears twice"};
    }
  }
  for (std::string_view key : keys) {
    if (fields.count(key) == 0) return Error{"", std::string(key) + ": missing"};
  }
  return fields;
}

// Assigns one decoded field; each returns an error message on failure.
#define SHAREQ_TRY(target, expr)    \
  do {                              \
    auto _r = (expr);               \
    if (!_r) return _r.error();     \
    target = std::move(_r).value(); \
  } while (false)

Result<WarmPool> parse_numbers(const Fields& f) {
  WarmPool pool;
  SHAREQ_TRY(pool.id, number<PoolId>("id", f.at("id"), UINT64_MAX - 1));
  if (pool.id == 0) return Error{"", "id: must be at least 1"};
  SHAREQ_TRY(pool.created, number<Time>("created", f.at("created"), INT64_MAX));
  SHAREQ_TRY(pool.expires_at, number<Time>("expires", f.at("expires"), INT64_MAX));
  SHAREQ_TRY(pool.origin_job, number<JobId>("origin", f.at("origin"), UINT32_MAX));
  SHAREQ_TRY(pool.reused_by, job_list("reused", f.at("reused")));
  SHAREQ_TRY(pool.uid, number<uint32_t>("uid", f.at("uid"), UINT32_MAX));
  return pool;
}

Result<WarmPool> parse_pool(std::string_view line) {
  Fields f;
  SHAREQ_TRY(f, split_fields(line, kPoolKeys));
  WarmPool pool;
  SHAREQ_TRY(pool, parse_numbers(f));
  const std::optional<PoolStatus> status = parse_status(f.at("status"));
  if (!status) return Error{"", "status: unknown status " + text::quote(f.at("status"))};
  pool.status = *status;
  SHAREQ_TRY(pool.user, decode("user", f.at("user")));
  SHAREQ_TRY(pool.account, decode("account", f.at("account")));
  SHAREQ_TRY(pool.partition, decode("partition", f.at("partition")));
  SHAREQ_TRY(pool.image_digest, decode("image", f.at("image")));
  if (!pool.image_digest.empty() && !is_sha256_hex(pool.image_digest, false)) {
    return Error{"", "image: not 64 lower-case hex digits"};
  }
  SHAREQ_TRY(pool.nodes, name_list("nodes", f.at("nodes")));
  SHAREQ_TRY(pool.match, match_list(f.at("match")));
  SHAREQ_TRY(pool.warm_dir, decode("dir", f.at("dir")));
  Result<bool> dir_ok = check_dir(pool.warm_dir, pool.id);
  if (!dir_ok) return dir_ok.error();
  EndedJob facts{0,          pool.user, pool.uid, pool.account, pool.partition, pool.image_digest,
                 pool.nodes, 0};
  pool.key = make_key(pool.match, facts);
  return pool;
}

// One "ended" line into `ended`.
Result<bool> parse_ended(std::string_view line, EndedEarly& ended) {
  Fields f;
  SHAREQ_TRY(f, split_fields(line, kEndedKeys));
  std::string node;
  std::string name;
  Time until = 0;
  SHAREQ_TRY(node, decode("node", f.at("node")));
  if (node.empty()) return Error{"", "node: empty"};
  SHAREQ_TRY(name, decode("name", f.at("name")));
  if (!is_node_warm_name(name)) {
    return Error{"", "name: " + text::quote(name) + " is not warm-JOBID (JOBID 1..4294967295)"};
  }
  SHAREQ_TRY(until, number<Time>("until", f.at("until"), INT64_MAX));
  if (!ended[node].emplace(name, until).second) {
    return Error{"", "directory " + name + " on node " + node + " appears twice"};
  }
  return true;
}

#undef SHAREQ_TRY

Error at_line(size_t index, const Error& error) {
  return Error{"warm pool state", "line " + std::to_string(index + 1) + ": " + error.message};
}

// The lines of `text`: a trailing newline ends the last line; no other empty line is allowed.
std::vector<std::string_view> lines_of(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) return {};
  return text::split(text, '\n');
}

Result<PoolId> parse_prologue(const std::vector<std::string_view>& lines) {
  if (lines.empty() || lines[0].substr(0, kHeader.size()) != kHeader) {
    return at_line(0, Error{"", "not a warm-pool state file (no \"shareq-warm-pools\" header)"});
  }
  const std::string_view version = lines[0].substr(kHeader.size());
  if (version != "1" && version != std::to_string(kStateFormatVersion)) {
    return at_line(
        0, Error{"", "unsupported version " + text::quote(version) + "; this shareq reads 1 and " +
                         std::to_string(kStateFormatVersion)});
  }
  constexpr std::string_view kNextId = "next-id ";
  if (lines.size() < 2 || lines[1].substr(0, kNextId.size()) != kNextId) {
    return at_line(1, Error{"", "expected \"next-id N\""});
  }
  Result<PoolId> next = number<PoolId>("next-id", lines[1].substr(kNextId.size()), UINT64_MAX);
  if (!next) return at_line(1, next.error());
  return next.value();
}

}  // namespace

std::string format_registry(const WarmPoolRegistry& registry) {
  std::string out = std::string(kHeader) + std::to_string(kStateFormatVersion) + "\n";
  out += "next-id " + std::to_string(registry.next_id()) + "\n";
  for (const auto& [id, pool] : registry.pools()) out += format_pool(pool);
  return out + format_ended(registry.ended_early()) + "end\n";
}

Result<WarmPoolRegistry> parse_registry(std::string_view text, WarmSettings settings) {
  const std::vector<std::string_view> lines = lines_of(text);
  Result<PoolId> next_id = parse_prologue(lines);
  if (!next_id) return next_id.error();
  if (lines.size() < 3 || lines.back() != "end") {
    return at_line(lines.size(), Error{"", "missing the final \"end\" line (truncated file?)"});
  }
  std::vector<WarmPool> pools;
  EndedEarly ended;
  constexpr std::string_view kPool = "pool ";
  constexpr std::string_view kEnded = "ended ";
  for (size_t i = 2; i + 1 < lines.size(); ++i) {
    if (lines[i].substr(0, kEnded.size()) == kEnded) {
      Result<bool> ok = parse_ended(lines[i].substr(kEnded.size()), ended);
      if (!ok) return at_line(i, Error{"", "ended: " + ok.error().message});
      continue;
    }
    if (lines[i].substr(0, kPool.size()) != kPool) {
      return at_line(i, Error{"", "expected a \"pool\" or \"ended\" line, or \"end\""});
    }
    Result<WarmPool> pool = parse_pool(lines[i].substr(kPool.size()));
    if (!pool) return at_line(i, Error{"", "pool: " + pool.error().message});
    pools.push_back(std::move(pool).value());
  }
  Result<WarmPoolRegistry> registry = WarmPoolRegistry::restore(
      std::move(settings), next_id.value(), std::move(pools), std::move(ended));
  if (!registry) return Error{"warm pool state", registry.error().message};
  return registry;
}

}  // namespace shareq::warm
