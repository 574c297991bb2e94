#include "policy/claims_format.hpp"

#include <array>
#include <cstdint>
#include <set>

#include "text.hpp"

namespace shareq::policy {
namespace {

constexpr std::string_view kHeader = "shareq-reclaim-claims ";
constexpr std::string_view kClaim = "claim ";
constexpr std::string_view kEnd = "end";
constexpr std::array<std::string_view, 7> kKeys = {"job",      "share", "family", "amount",
                                                   "priority", "since", "victims"};
constexpr std::string_view kNameChars = "_.-";  // shareq.conf's names (config_parser.cpp)
constexpr size_t kMaxName = 64;

std::string join_ids(const std::vector<JobId>& ids) {
  std::string out;
  for (const JobId id : ids) {
    if (!out.empty()) out += ',';
    out += std::to_string(id);
  }
  return out;
}

// ---- parsing: every helper returns an Error message without the "line N: " prefix ----

Error failure(std::string_view key, const std::string& message) {
  return Error{"", std::string(key) + ": " + message};
}

Result<uint64_t> number(std::string_view key, std::string_view value, uint64_t min, uint64_t max) {
  const std::string allowed = std::to_string(min) + ".." + std::to_string(max);
  const text::Number parsed = text::parse_decimal(value, max);
  if (parsed.status != text::NumberStatus::Ok) {
    return failure(key, text::number_message(value, parsed, allowed));
  }
  if (parsed.value < min) {
    return failure(key, std::string(value) + " is out of range; allowed: " + allowed);
  }
  return parsed.value;
}

Result<std::string> name(std::string_view key, std::string_view value) {
  if (value.empty() || value.size() > kMaxName) {
    return failure(key, "a name of 1 to " + std::to_string(kMaxName) + " characters");
  }
  if (!text::all_of_charset(value, kNameChars)) {
    return failure(key, "unexpected character " + text::first_bad_char(value, kNameChars) +
                            "; allowed: letters, digits and _.-");
  }
  return std::string(value);
}

Result<std::vector<JobId>> victims(std::string_view value) {
  if (value.empty()) return failure("victims", "at least one job id");
  std::vector<JobId> ids;
  std::set<JobId> seen;
  for (const std::string_view piece : text::split(value, ',')) {
    Result<uint64_t> id = number("victims", piece, 1, UINT32_MAX);
    if (!id) return id.error();
    if (!seen.insert(static_cast<JobId>(id.value())).second) {
      return failure("victims", "job " + std::string(piece) + " appears twice");
    }
    ids.push_back(static_cast<JobId>(id.value()));
  }
  return ids;
}

// "key=value" tokens in kKeys' order; the values, by position.
Result<std::array<std::string_view, kKeys.size()>> fields(std::string_view line) {
  const std::vector<std::string_view> tokens = text::split(line, ' ');
  if (tokens.size() != kKeys.size()) {
    return Error{"", "expected " + std::to_string(kKeys.size()) +
                         " fields (job share family amount priority since victims), found " +
                         std::to_string(tokens.size())};
  }
  std::array<std::string_view, kKeys.size()> values;
  for (size_t i = 0; i < kKeys.size(); ++i) {
    const std::string_view token = tokens[i];
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos || token.substr(0, eq) != kKeys[i]) {
      return Error{"", "field " + std::to_string(i + 1) + ": expected " + std::string(kKeys[i]) +
                           "=..., found " + text::quote(token)};
    }
    values[i] = token.substr(eq + 1);
  }
  return values;
}

#define SHAREQ_TRY(target, expr)                        \
  do {                                                  \
    auto _r = (expr);                                   \
    if (!_r) return _r.error();                         \
    target = static_cast<decltype(target)>(_r.value()); \
  } while (false)

Result<NamedClaim> parse_claim(std::string_view line) {
  std::array<std::string_view, kKeys.size()> v;
  {
    auto f = fields(line);
    if (!f) return f.error();
    v = f.value();
  }
  NamedClaim claim;
  SHAREQ_TRY(claim.job, number("job", v[0], 1, UINT32_MAX));
  SHAREQ_TRY(claim.share, name("share", v[1]));
  SHAREQ_TRY(claim.family, name("family", v[2]));
  SHAREQ_TRY(claim.amount, number("amount", v[3], 1, INT64_MAX));
  SHAREQ_TRY(claim.priority, number("priority", v[4], 0, 99));
  SHAREQ_TRY(claim.since, number("since", v[5], 0, INT64_MAX));
  auto ids = victims(v[6]);
  if (!ids) return ids.error();
  claim.victims = std::move(ids).value();
  return claim;
}

#undef SHAREQ_TRY

Error at_line(size_t index, const Error& error) {
  return Error{"reclaim claims", "line " + std::to_string(index + 1) + ": " + error.message};
}

}  // namespace

std::string format_claims(std::span<const NamedClaim> claims) {
  std::string out = std::string(kHeader) + std::to_string(kClaimsFormatVersion) + "\n";
  for (const NamedClaim& c : claims) {
    out += std::string(kClaim) + "job=" + std::to_string(c.job) + " share=" + c.share +
           " family=" + c.family + " amount=" + std::to_string(c.amount) +
           " priority=" + std::to_string(c.priority) + " since=" + std::to_string(c.since) +
           " victims=" + join_ids(c.victims) + "\n";
  }
  return out + std::string(kEnd) + "\n";
}

Result<std::vector<NamedClaim>> parse_claims(std::string_view text) {
  if (text.empty() || text.back() != '\n') {
    return at_line(0, Error{"", "truncated (no \"end\" line)"});
  }
  text.remove_suffix(1);
  const std::vector<std::string_view> lines = text::split(text, '\n');
  if (!lines[0].starts_with(kHeader)) {
    return at_line(0, Error{"", "not a reclaim-claims file (no \"shareq-reclaim-claims\" header)"});
  }
  const std::string_view version = lines[0].substr(kHeader.size());
  if (version != std::to_string(kClaimsFormatVersion)) {
    return at_line(0, Error{"", "unsupported version " + text::quote(version) +
                                    "; this shareq reads " + std::to_string(kClaimsFormatVersion)});
  }
  if (lines.size() < 2 || lines.back() != kEnd) {
    return at_line(lines.size() - 1, Error{"", "truncated (no \"end\" line)"});
  }
  std::vector<NamedClaim> claims;
  std::set<JobId> jobs;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    if (!lines[i].starts_with(kClaim)) {
      return at_line(
          i, Error{"", "expected \"claim ...\" or \"end\", found " + text::quote(lines[i])});
    }
    Result<NamedClaim> claim = parse_claim(lines[i].substr(kClaim.size()));
    if (!claim) return at_line(i, claim.error());
    if (!jobs.insert(claim.value().job).second) {
      return at_line(i, Error{"", "job: " + std::to_string(claim.value().job) +
                                      " has two claims; a job has at most one"});
    }
    claims.push_back(std::move(claim).value());
  }
  return claims;
}

}  // namespace shareq::policy
