// parse_config: shareq.conf text -> Config, collecting every error with file, line and key.
//
// Two passes: the first reads each line (Family lines, Share lines kept as text, global
// settings); the second resolves each Share line against the families, whichever line defined
// them, and checks quotas against capacity. Errors are then put in line order.
//
// A Family line with errors of its own is not in the Config, but its Share lines are still
// checked for what does not depend on the family's capacity (their syntax, their unit when the
// family's Capacity= gave one, duplicates), so that one error hides no other and causes none.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <optional>

#include "config.hpp"
#include "config_settings.hpp"
#include "flags.hpp"
#include "regular_file.hpp"
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
    "[LendLimit=LIMIT] [BorrowWeight=W]";
constexpr std::string_view kLineHelp =
    "a line is Key=Value words separated by spaces, e.g. Family=p4 Partitions=p4 "
    "Capacity=node=4";
constexpr std::array<std::string_view, 5> kFamilyKeys = {"Family", "Partitions", "Capacity",
                                                         "Hardware", "Fallback"};
constexpr std::array<std::string_view, 6> kShareKeys = {"Share",       "Family",    "Quota",
                                                        "BorrowLimit", "LendLimit", "BorrowWeight"};

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
  std::optional<std::string> name;  // set when it is a valid share name
  std::optional<std::string> family;
  std::optional<std::string> quota;
  std::optional<std::string> borrow;
  std::optional<std::string> lend;
  std::optional<std::string> weight;
  int line = 0;
};

// The longest key shown as written; a longer one is quoted, and so cut like a value.
constexpr size_t kMaxShownKey = 64;

// A key as shown in a message: as written when plain and short, quoted (and cut) otherwise.
std::string display_key(std::string_view key) {
  return !key.empty() && key.size() <= kMaxShownKey && text::all_of_charset(key, "")
             ? std::string(key)
             : text::quote(key);
}

// The lines of a file: each ends at "\n", "\r\n" or a lone "\r" (old Mac files); a "\r" before
// "\n" stays on its line, where the tokenizer skips it as a space.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool lone_cr = text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n');
    if (text[i] == '\n' || lone_cr) {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  lines.push_back(text.substr(start));
  return lines;
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

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
    if (text.starts_with(kUtf8Bom)) {
      text.remove_prefix(kUtf8Bom.size());  // editors on Windows write one; it is no key
    }
    for (std::string_view line : split_lines(text)) {
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
    bool after_pair = false;  // the previous word on the line was Key=Value
    constexpr std::string_view kSpace = " \t\r\v\f";
    size_t pos = text.find_first_not_of(kSpace);
    while (pos != std::string_view::npos) {
      const size_t end = std::min(text.find_first_of(kSpace, pos), text.size());
      const std::string_view word = text.substr(pos, end - pos);
      const size_t eq = word.find('=');
      if (eq == 0) {
        error(line, display_key(word.substr(0, 0)),
              text::quote(word) + " has no key before \"=\"; " + std::string(kLineHelp));
      } else if (eq == std::string_view::npos) {
        // After a Key=Value word, a bare word is most likely the rest of a value with a space.
        error(line, display_key(word),
              text::quote(word) + " is not Key=Value; " +
                  (after_pair ? std::string("values cannot contain spaces")
                              : std::string(kLineHelp)));
      } else {
        tokens.push_back(Token{word.substr(0, eq), word.substr(eq + 1)});
      }
      after_pair = eq != std::string_view::npos && eq != 0;
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
    for (std::string_view record_key : {"Quota", "BorrowLimit", "LendLimit", "BorrowWeight"}) {
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
    std::optional<Unit> unit;  // the unit of Capacity=, when it has one
    if (fields[2].value) {
      ok = parse_capacity(line, *fields[2].value, family, unit) && ok;
    }
    if (fields[3].value) {
      ok = parse_hardware(line, *fields[3].value, family) && ok;
    }
    if (fields[4].value && named) {
      ok = parse_fallback(line, *fields[4].value, family) && ok;
    }
    if (ok) {
      config_.families.push_back(std::move(family));
    } else if (named) {
      broken_families_.emplace(family.name, unit);
    } else if (fields[0].value) {
      bad_family_names_.emplace(*fields[0].value);
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

  bool parse_capacity(int line, std::string_view value, Family& family, std::optional<Unit>& unit) {
    Result<units::Amount> amount = units::parse_amount(value);
    if (!amount) {
      error(line, "Capacity", amount.error().message);
      return false;
    }
    unit = amount.value().unit;
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

  void parse_share(int line, const std::array<Field, 6>& fields) {
    for (size_t i = 1; i < 3; ++i) {
      if (!fields[i].given) {
        missing(line, kShareKeys[i], kShareHelp);
      }
    }
    auto text_of = [](const Field& f) {
      return f.value ? std::optional<std::string>(*f.value) : std::nullopt;
    };
    std::optional<std::string> name = text_of(fields[0]);
    if (name) {
      if (Result<std::string> parsed = parse_share_name(*name); !parsed) {
        error(line, "Share", parsed.error().message);
        name.reset();
      }
    }
    // Checked once every family is known, even without a name, family or quota: the other
    // values' errors are reported too.
    pending_.push_back(PendingShare{name, text_of(fields[1]), text_of(fields[2]),
                                    text_of(fields[3]), text_of(fields[4]), text_of(fields[5]),
                                    line});
  }

  // What a Share line knows of its family: the whole Family (valid), or its unit alone or
  // nothing (a Family line with errors of its own, an unknown family, no Family=).
  struct FamilyView {
    const Family* family = nullptr;
    std::optional<Unit> unit;
    bool defined = false;  // a Family line of this file has the name
  };

  FamilyView family_view(const PendingShare& pending) {
    FamilyView view;
    if (!pending.family) {
      return view;  // reported as missing or empty already
    }
    const std::string& name = *pending.family;
    if (const Family* family = config_.find_family(name)) {
      return FamilyView{family, family->unit, true};
    }
    if (const auto it = broken_families_.find(name); it != broken_families_.end()) {
      return FamilyView{nullptr, it->second, true};  // its own errors are reported already
    }
    if (!bad_family_names_.contains(name)) {
      unknown_family(pending.line, name);  // else: its Family line's error says it all
    }
    return view;
  }

  void resolve_share(const PendingShare& pending) {
    const int line = pending.line;
    const FamilyView view = family_view(pending);
    if (pending.name && view.defined) {
      const auto key = std::make_pair(to_lower(*pending.name), *pending.family);
      const auto [it, inserted] = share_lines_.emplace(key, line);
      if (!inserted) {
        return error(line, "Share",
                     "duplicate Share=" + *pending.name + " in family " + *pending.family +
                         " (first on " + line_ref(it->second) +
                         "); share names ignore case, one Share line per share and family");
      }
    }
    ShareQuota quota{
        pending.name.value_or(""), pending.family.value_or(""), 0, Limit{}, Limit{}, line,
        kBorrowWeightScale};
    bool ok = pending.name && view.family != nullptr;
    if (pending.quota) {
      ok = parse_quota(line, *pending.quota, view, pending.family.value_or(""), quota.quota) && ok;
    }
    ok = parse_limit(line, "BorrowLimit", pending.borrow, view.unit, quota.borrow_limit) && ok;
    ok = parse_limit(line, "LendLimit", pending.lend, view.unit, quota.lend_limit) && ok;
    if (pending.weight) {
      if (Result<int64_t> weight = units::parse_weight(*pending.weight); weight) {
        quota.borrow_weight = weight.value();
      } else {
        error(line, "BorrowWeight", weight.error().message);
        ok = false;
      }
    }
    if (ok && pending.quota) {
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

  // Quota=: its syntax always; its unit when the family's is known; the family's sum of quotas
  // against its capacity when the family is valid.
  bool parse_quota(int line, std::string_view value, const FamilyView& view,
                   const std::string& family_name, int64_t& quota) {
    const std::string allowed =
        view.unit ? std::string(unit_name(*view.unit)) + "=N, N a non-negative integer (the unit " +
                        "of family " + family_name + ")"
                  : std::string(
                        "node=N or gres/gpu=N, N a non-negative integer, in the family's "
                        "unit");
    Result<units::Amount> amount = units::parse_amount(value, allowed);
    if (!amount) {
      error(line, "Quota", amount.error().message);
      return false;
    }
    if (view.unit && amount.value().unit != *view.unit) {
      error(line, "Quota",
            text::quote(value) + " is in " + std::string(unit_name(amount.value().unit)) +
                " but family " + family_name + " counts " + std::string(unit_name(*view.unit)) +
                "; allowed: " + allowed);
      return false;
    }
    quota = amount.value().value;
    if (view.family == nullptr) {
      return true;
    }
    const Family& family = *view.family;
    // Quotas and the capacity are at most INT64_MAX, so the sum up to the first crossing (a sum
    // <= capacity plus one quota) fits in 64 unsigned bits; after it, the sum only saturates.
    const auto capacity = static_cast<uint64_t>(family.capacity);
    const auto amount_value = static_cast<uint64_t>(quota);
    uint64_t& sum = quota_sums_[family.name];
    const bool crosses = sum <= capacity && amount_value > capacity - sum;
    sum = amount_value > UINT64_MAX - sum ? UINT64_MAX : sum + amount_value;
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
                   std::optional<Unit> unit, Limit& limit) {
    if (!value) {
      return true;
    }
    Result<Limit> parsed = units::parse_limit(*value, unit);
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
  std::map<std::string, uint64_t> quota_sums_;
  // Family lines with errors, by their (valid, first) name: the unit of their Capacity=, if any.
  std::map<std::string, std::optional<Unit>> broken_families_;
  // Family= values that are no valid name: a Share line naming one gets no second error.
  std::set<std::string> bad_family_names_;
  std::set<std::string> over_reported_;
};

}  // namespace

ParseResult parse_config(std::string_view text, std::string_view file) {
  return Parser(file).run(text);
}

namespace {

// Reads `fd` to its end, at most kMaxConfigFileBytes, and closes it; `label` names it in errors.
std::variant<std::string, ConfigError> read_limited(int fd, const std::string& label) {
  auto read = read_to_end_and_close(fd, kMaxConfigFileBytes);
  if (auto* text = std::get_if<std::string>(&read)) return std::move(*text);
  const ReadFailure& failure = std::get<ReadFailure>(read);
  if (failure.too_large) {
    return ConfigError{label, 0, "",
                       "larger than " + std::to_string(kMaxConfigFileBytes >> 20) +
                           " MiB; allowed: a file of at most that size"};
  }
  return ConfigError{label, 0, "", "cannot read: " + failure.why};
}

}  // namespace

std::variant<std::string, ConfigError> read_config_text(const std::string& path) {
  // Only a regular file (or a link to one) is a configuration file: a FIFO (or a device) is
  // refused before anything waits on it.
  auto opened = open_regular_file(path);
  if (auto* problem = std::get_if<std::string>(&opened)) {
    return ConfigError{path, 0, "", std::move(*problem)};
  }
  return read_limited(std::get<int>(opened), path);
}

std::variant<std::string, ConfigError> read_config_fd(int fd, const std::string& label) {
  return read_limited(fd, label);
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
