#include "policy/run_words.hpp"

#include <charconv>

#include "text.hpp"

namespace shareq::policy {
namespace {

std::optional<int64_t> to_int(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The key of each word's start time.
std::string_view time_key(std::string_view prefix) {
  return prefix == kPreemptedWord ? "run" : "at";
}

}  // namespace

std::string preempted_word(std::string_view reason, JobId by, Time start) {
  return std::string(kPreemptedWord) + std::string(reason) + ",by:" + std::to_string(by) +
         ",run:" + std::to_string(start);
}

std::string start_word(std::string_view how, Time start) {
  return std::string(kStartWord) + std::string(how) + ",at:" + std::to_string(start);
}

std::string fallback_word(std::string_view cause, std::string_view from, Time start) {
  return std::string(kFallbackWord) + std::string(cause) + ",from:" + std::string(from) +
         ",at:" + std::to_string(start);
}

std::optional<std::string_view> word_field(std::string_view fields, std::string_view key) {
  for (std::string_view part : text::split(fields, ',')) {
    if (part.size() > key.size() && part.starts_with(key) && part[key.size()] == ':') {
      return part.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> run_word_fields(std::string_view admin_comment,
                                                std::string_view prefix, Time start) {
  for (std::string_view word : text::split(admin_comment, ' ')) {
    if (!word.starts_with(prefix)) continue;
    const std::string_view fields = word.substr(prefix.size());
    const auto at = word_field(fields, time_key(prefix));
    if (at && to_int(*at) == start) return fields;
  }
  return std::nullopt;
}

std::optional<std::string_view> run_word_kind(std::string_view admin_comment,
                                              std::string_view prefix, Time start) {
  const auto fields = run_word_fields(admin_comment, prefix, start);
  if (!fields) return std::nullopt;
  return fields->substr(0, fields->find(','));
}

}  // namespace shareq::policy
