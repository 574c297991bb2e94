// parse_config: shareq.conf text -> Config, collecting every error with file, line and key.
//
// Two passes: the first reads each line (Family lines, Share lines kept as text, global
// settings); the second resolves each Share line against the families, whichever line defined
// them, and checks quotas against capacity. Errors are then put in line order.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cerrno>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <system_error>

#include "config.hpp"
#include "config_settings.hpp"
#include "flags.hpp"
#include "text.hpp"
#include "units.hpp"

namespace shareq {
namespace {

constexpr std::string_view kNameChars = "_.-";
constexpr std::string_view kFamilyHelp =
    "a Family line is Family=NAME Partitions=P[,P...] Capacity=node=N|gres/gpu=N "
    "[Hardware=gpus=N,numa=N,cores=N] [Fallback=FAMILY[,FAMILY...]]";
constexpr std::string_view kShareHelp =
    "a Share line is Share=NAME Family=NAME Quota=node=N|gres/gpu=N [BorrowLimit=LIMIT] "
    "[LendLimit=LIMIT]";
constexpr std::array<std::string_view, 5> kFamilyKeys = {"Family", "Partitions", "Capacity",
                                                         "Hardware", "Fallback"};
constexpr std::array<std::string_view, 5> kShareKeys = {"Share", "Family", "Quota", "BorrowLimit",
                                                        "LendLimit"};

struct Token {
  std::string_view key;
  std::string_view value;
};

// A key=value of a record line: given at all, and its value when non-empty.
struct Field {
  bool given = false;
  std::optional<std::string_view> value;
};

struct PendingShare {
  std::string name;
  std::optional<std::string> family;
  std::optional<std::string> quota;
  std::optional<std::string> borrow;
  std::optional<std::string> lend;
  int line = 0;
};

// A key as shown in a message: as written when plain, quoted otherwise.
std::string display_key(std::string_view key) {
  return !key.empty() && text::all_of_charset(key, "") ? std::string(key) : text::quote(key);
}

template <size_t N>
std::string list_keys(const std::array<std::string_view, N>& keys) {
  std::vector<std::string> names(keys.begin(), keys.end());
  return text::join(names);
}

std::string line_ref(int line) { return "line " + std::to_string(line); }

bool valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && text::all_of_charset(name, kNameChars);
}

class Parser {
 public:
  explicit Parser(std::string_view file) { config_.file = std::string(file); }

  ParseResult run(std::string_view text) {
    int number = 0;
    for (std::string_view line : text::split(text, '\n')) {
      parse_line(++number, line);
    }
    for (const PendingShare& share : pending_) {
      resolve_share(share);
    }
    check_fallbacks();
    std::stable_sort(errors_.begin(), errors_.end(),
                     [](const ConfigError& a, const ConfigError& b) { return a.line < b.line; });
    ParseResult result;
    if (errors_.empty()) {
      result.config = std::move(config_);
    } else {
      result.errors = std::move(errors_);
    }
    return result;
  }

 private:
  void error(int line, std::string key, std::string message) {
    errors_.push_back(ConfigError{config_.file, line, std::move(key), std::move(message)});
  }

  std::vector<Token> tokenize(int line, std::string_view text) {
    text = text.substr(0, text.find('#'));
    std::vector<Token> tokens;
    constexpr std::string_view kSpace = " \t\r\v\f";
    size_t pos = text.find_first_not_of(kSpace);
    while (pos != std::string_view::npos) {
      const size_t end = std::min(text.find_first_of(kSpace, pos), text.size());
      const std::string_view word = text.substr(pos, end - pos);
      const size_t eq = word.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        error(line, display_key(word.substr(0, eq == 0 ? 0 : word.size())),
              text::quote(word) + " is not Key=Value; values cannot contain spaces");
      } else {
        tokens.push_back(Token{word.substr(0, eq), word.substr(eq + 1)});
      }
      pos = text.find_first_not_of(kSpace, end);
    }
    return tokens;
  }

  void parse_line(int line, std::string_view text) {
    const std::vector<Token> tokens = tokenize(line, text);
    if (tokens.empty()) {
      return;
    }
    const std::string_view first = tokens.front().key;
    if (text::iequals(first, "Family")) {
      parse_family(line, collect(line, tokens, kFamilyKeys, "Family", kFamilyHelp));
    } else if (text::iequals(first, "Share")) {
      parse_share(line, collect(line, tokens, kShareKeys, "Share", kShareHelp));
    } else if (const auto* setting = settings::find_global_setting(first)) {
      parse_global(line, *setting, tokens);
    } else {
      unknown_first_key(line, first);
    }
  }

  void unknown_first_key(int line, std::string_view key) {
    for (std::string_view record_key : {"Partitions", "Capacity", "Hardware", "Fallback"}) {
      if (text::iequals(key, record_key)) {
        return error(line, std::string(record_key),
                     "belongs on a Family line, after Family=NAME; " + std::string(kFamilyHelp));
      }
    }
    for (std::string_view record_key : {"Quota", "BorrowLimit", "LendLimit"}) {
      if (text::iequals(key, record_key)) {
        return error(line, std::string(record_key),
                     "belongs on a Share line, after Share=NAME; " + std::string(kShareHelp));
      }
    }
    std::vector<std::string> known = {"Family", "Share"};
    for (const auto& setting : settings::global_settings()) {
      known.emplace_back(setting.name);
    }
    error(line, display_key(key), "unknown key; a line starts with one of: " + text::join(known));
  }

  template <size_t N>
  std::array<Field, N> collect(int line, const std::vector<Token>& tokens,
                               const std::array<std::string_view, N>& keys, std::string_view kind,
                               std::string_view help) {
    std::array<Field, N> fields{};
    for (const Token& token : tokens) {
      const auto* found = std::find_if(keys.begin(), keys.end(), [&](std::string_view k) {
        return text::iequals(k, token.key);
      });
      if (found == keys.end()) {
        error(line, display_key(token.key),
              "unknown key on a " + std::string(kind) + " line; allowed: " + list_keys(keys));
        continue;
      }
      Field& field = fields[static_cast<size_t>(found - keys.begin())];
      if (field.given) {
        error(line, std::string(*found), "given twice on this line; " + std::string(help));
        continue;
      }
      field.given = true;
      if (token.value.empty()) {
        error(line, std::string(*found), "empty value; " + std::string(help));
      } else {
        field.value = token.value;
      }
    }
    return fields;
  }

  void missing(int line, std::string_view key, std::string_view help) {
    error(line, std::string(key), "missing; " + std::string(help));
  }

  void parse_family(int line, const std::array<Field, 5>& fields) {
    bool ok =
        fields[0].value.has_value() && fields[1].value.has_value() && fields[2].value.has_value();
    for (size_t i = 1; i < 3; ++i) {
      if (!fields[i].given) {
        missing(line, kFamilyKeys[i], kFamilyHelp);
      }
    }
    Family family;
    family.line = line;
    bool named = false;
    if (fields[0].value) {
      family.name = std::string(*fields[0].value);
      named = check_family_name(line, family.name);
    }
    ok = named && ok;
    if (fields[1].value && named) {
      ok = parse_partitions(line, family.name, *fields[1].value, family) && ok;
    }
    if (fields[2].value) {
      ok = parse_capacity(line, *fields[2].value, family) && ok;
    }
    if (fields[3].value) {
      ok = parse_hardware(line, *fields[3].value, family) && ok;
    }
    if (fields[4].value && named) {
      ok = parse_fallback(line, *fields[4].value, family) && ok;
    }
    if (ok) {
      config_.families.push_back(std::move(family));
    }
  }

  // Fallback=F[,F...]: names only here; that each names another family is checked once every
  // Family line is read (check_fallbacks), since a fallback may be defined further down.
  bool parse_fallback(int line, std::string_view value, Family& family) {
    for (std::string_view word : text::split(value, ',')) {
      const std::string name(word);
      if (!valid_name(name)) {
        error(line, "Fallback",
              text::quote(name) +
                  " is not a family name; allowed: a comma-separated list of families defined "
                  "in this file, e.g. Fallback=p4,p4de");
        return false;
      }
      if (std::find(family.fallback.begin(), family.fallback.end(), name) !=
          family.fallback.end()) {
        error(line, "Fallback",
              "family " + name + " is listed twice; each fallback family is listed once");
        return false;
      }
      family.fallback.push_back(name);
    }
    return true;
  }

  // Each family's Fallback= names other families that exist.
  void check_fallbacks() {
    for (const Family& family : config_.families) {
      for (const std::string& name : family.fallback) {
        if (name == family.name) {
          error(family.line, "Fallback",
                "family " + name + " falls back to itself; allowed: other families");
        } else if (config_.find_family(name) == nullptr && !family_lines_.contains(name)) {
          unknown_family(family.line, name, "Fallback");
        }
      }
    }
  }

  bool check_family_name(int line, const std::string& name) {
    if (!valid_name(name)) {
      error(line, "Family",
            text::quote(name) +
                " is not a family name; allowed: 1..64 characters of "
                "[A-Za-z0-9_.-]");
      return false;
    }
    const auto [it, inserted] = family_lines_.emplace(name, line);
    if (!inserted) {
      error(line, "Family",
            "duplicate Family=" + name + " (first on " + line_ref(it->second) +
                "); each family is defined once");
      return false;
    }
    return true;
  }

  bool parse_partitions(int line, const std::string& family_name, std::string_view value,
                        Family& family) {
    bool ok = true;
    for (std::string_view partition : text::split(value, ',')) {
      const std::string name(partition);
      if (!valid_name(partition)) {
        error(line, "Partitions",
              (partition.empty() ? std::string("empty partition name")
                                 : text::quote(partition) + " is not a partition "
                                                            "name") +
                  "; allowed: a comma-separated list of partition names of [A-Za-z0-9_.-]");
        ok = false;
      } else if (const auto it = partition_owner_.find(name); it != partition_owner_.end()) {
        error(line, "Partitions",
              "partition " + name + " is already in family " + it->second.first + " (" +
                  line_ref(it->second.second) + "); a partition belongs to one family");
        ok = false;
      } else {
        partition_owner_.emplace(name, std::make_pair(family_name, line));
        family.partitions.push_back(name);
      }
    }
    return ok;
  }

  bool parse_capacity(int line, std::string_view value, Family& family) {
    Result<units::Amount> amount = units::parse_amount(value);
    if (!amount) {
      error(line, "Capacity", amount.error().message);
      return false;
    }
    if (amount.value().value <= 0) {
      error(line, "Capacity",
            text::quote(value) + " is not above 0; allowed: node=N or gres/gpu=N with N > 0");
      return false;
    }
    family.unit = amount.value().unit;
    family.capacity = amount.value().value;
    return true;
  }

  bool parse_hardware(int line, std::string_view value, Family& family) {
    Result<HardwareSpec> spec = parse_hardware_spec(value);
    if (!spec) {
      error(line, "Hardware", spec.error().message);
      return false;
    }
    family.hardware = std::move(spec).value();
    return true;
  }

  void parse_share(int line, const std::array<Field, 5>& fields) {
    for (size_t i = 1; i < 3; ++i) {
      if (!fields[i].given) {
        missing(line, kShareKeys[i], kShareHelp);
      }
    }
    if (!fields[0].value) {
      return;
    }
    Result<std::string> name = parse_share_name(*fields[0].value);
    if (!name) {
      error(line, "Share", name.error().message);
      return;
    }
    auto text_of = [](const Field& f) {
      return f.value ? std::optional<std::string>(*f.value) : std::nullopt;
    };
    if (!fields[1].value || !fields[2].value) {
      return;
    }
    pending_.push_back(PendingShare{std::string(*fields[0].value), text_of(fields[1]),
                                    text_of(fields[2]), text_of(fields[3]), text_of(fields[4]),
                                    line});
  }

  void resolve_share(const PendingShare& pending) {
    const int line = pending.line;
    const Family* family = config_.find_family(*pending.family);
    if (family == nullptr) {
      if (!family_lines_.contains(*pending.family)) {
        unknown_family(line, *pending.family);
      }
      return;  // a family with errors of its own: those are reported already
    }
    const auto key = std::make_pair(to_lower(pending.name), family->name);
    const auto [it, inserted] = share_lines_.emplace(key, line);
    if (!inserted) {
      return error(line, "Share",
                   "duplicate Share=" + pending.name + " in family " + family->name +
                       " (first on " + line_ref(it->second) +
                       "); share names ignore case, one Share line per share and family");
    }
    ShareQuota quota{pending.name, family->name, 0, Limit{}, Limit{}, line};
    bool ok = parse_quota(line, *pending.quota, *family, quota.quota);
    ok = parse_limit(line, "BorrowLimit", pending.borrow, *family, quota.borrow_limit) && ok;
    ok = parse_limit(line, "LendLimit", pending.lend, *family, quota.lend_limit) && ok;
    if (ok) {
      config_.shares.push_back(std::move(quota));
    }
  }

  void unknown_family(int line, const std::string& name, std::string key = "Family") {
    std::vector<std::string> names;
    for (const auto& [family_name, family_line] : family_lines_) {
      names.push_back(family_name);
    }
    error(line, std::move(key),
          "no family " + text::quote(name) + " in this file; families: " +
              (names.empty() ? std::string("none") : text::join(names)));
  }

  bool parse_quota(int line, std::string_view value, const Family& family, int64_t& quota) {
    const std::string allowed =
        "allowed: " + std::string(unit_name(family.unit)) + "=N, the unit of family " + family.name;
    Result<units::Amount> amount = units::parse_amount(value);
    if (!amount) {
      error(line, "Quota", amount.error().message);
      return false;
    }
    if (amount.value().unit != family.unit) {
      error(line, "Quota",
            text::quote(value) + " is in " + std::string(unit_name(amount.value().unit)) +
                " but family " + family.name + " counts " + std::string(unit_name(family.unit)) +
                "; " + allowed);
      return false;
    }
    quota = amount.value().value;
    int64_t& sum = quota_sums_[family.name];
    const bool crosses = sum <= family.capacity && quota > family.capacity - sum;
    sum = quota > INT64_MAX - sum ? INT64_MAX : sum + quota;  // saturating, for the message
    if (crosses && over_reported_.insert(family.name).second) {
      error(line, "Quota",
            "quotas of family " + family.name + " sum to " + std::to_string(sum) + ", over its " +
                "Capacity=" + units::format_amount(family.unit, family.capacity) +
                "; the quotas of a family must fit in its capacity");
      return false;
    }
    return true;
  }

  bool parse_limit(int line, std::string_view key, const std::optional<std::string>& value,
                   const Family& family, Limit& limit) {
    if (!value) {
      return true;
    }
    Result<Limit> parsed = units::parse_limit(*value, family.unit);
    if (!parsed) {
      error(line, std::string(key), parsed.error().message);
      return false;
    }
    limit = parsed.value();
    return true;
  }

  void parse_global(int line, const settings::GlobalSetting& setting,
                    const std::vector<Token>& tokens) {
    const std::string name(setting.name);
    for (size_t i = 1; i < tokens.size(); ++i) {
      error(line, display_key(tokens[i].key),
            "a setting stands alone on its line (only Family and Share lines take several "
            "Key=Value pairs); put it on a line of its own after " +
                name);
    }
    const auto [it, inserted] = global_lines_.emplace(name, line);
    if (!inserted) {
      return error(
          line, name,
          "given twice (first on " + line_ref(it->second) + "); each setting is given once");
    }
    if (tokens.front().value.empty()) {
      return error(line, name, "empty value; allowed: " + std::string(setting.allowed));
    }
    if (auto message = setting.apply(config_, tokens.front().value)) {
      error(line, name, std::move(*message));
    }
  }

  Config config_;
  std::vector<ConfigError> errors_;
  std::vector<PendingShare> pending_;
  std::map<std::string, int> family_lines_;  // every Family= name seen, valid or not
  std::map<std::string, std::pair<std::string, int>> partition_owner_;  // family, line
  std::map<std::pair<std::string, std::string>, int> share_lines_;      // (share, family)
  std::map<std::string, int> global_lines_;
  std::map<std::string, int64_t> quota_sums_;
  std::set<std::string> over_reported_;
};

}  // namespace

ParseResult parse_config(std::string_view text, std::string_view file) {
  return Parser(file).run(text);
}

std::variant<std::string, ConfigError> read_config_text(const std::string& path) {
  std::FILE* stream = std::fopen(path.c_str(), "rb");
  std::string text;
  int failure = stream == nullptr ? errno : 0;
  bool too_large = false;
  if (stream != nullptr) {
    char buffer[65536];
    size_t got = 0;
    while (!too_large && (got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
      text.append(buffer, got);
      too_large = text.size() > kMaxConfigFileBytes;
    }
    if (!too_large && std::ferror(stream) != 0) {
      failure = errno != 0 ? errno : EIO;
    }
    std::fclose(stream);
  }
  if (too_large) {
    return ConfigError{path, 0, "",
                       "larger than " + std::to_string(kMaxConfigFileBytes >> 20) +
                           " MiB; allowed: a file of at most that size"};
  }
  if (failure != 0) {
    return ConfigError{path, 0, "", "cannot read: " + std::generic_category().message(failure)};
  }
  return text;
}

ParseResult parse_config_text(const std::variant<std::string, ConfigError>& text,
                              std::string_view file) {
  if (const auto* error = std::get_if<ConfigError>(&text)) {
    ParseResult result;
    result.errors.push_back(*error);
    return result;
  }
  return parse_config(std::get<std::string>(text), file);
}

ParseResult load_config_file(const std::string& path) {
  return parse_config_text(read_config_text(path), path);
}

std::string shareq_conf_beside(const std::string& slurm_conf_path) {
  const size_t slash = slurm_conf_path.rfind('/');
  if (slash == std::string::npos) return "./shareq.conf";
  return slurm_conf_path.substr(0, slash + 1) + "shareq.conf";
}

}  // namespace shareq
