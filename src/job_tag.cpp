// The job tag (job_tag.hpp): encoding a Submission, and decoding exactly what was encoded.
#include <limits>

#include "flags.hpp"
#include "job_tag.hpp"
#include "text.hpp"

namespace shareq {
namespace {

constexpr std::string_view kTagField = "tag";
constexpr std::string_view kTagPrefix = "shareq:";
constexpr std::string_view kTagForm =
    "expected \"shareq:share=NAME,priority=N,keep_alive=SECONDS[,image=REF][,home=FAMILY]\"";

Error tag_error(std::string_view tag, std::string_view problem) {
  return Error{std::string(kTagField), text::quote(tag) + " is not a shareq job tag: " +
                                           std::string(problem) + "; " + std::string(kTagForm)};
}

// The value of "key=value", or nullopt when `word` does not start with "key=".
std::optional<std::string_view> value_of(std::string_view word, std::string_view key) {
  if (word.size() <= key.size() || !word.starts_with(key) || word[key.size()] != '=') {
    return std::nullopt;
  }
  return word.substr(key.size() + 1);
}

// As a Family= name may be (config_parser.cpp).
bool valid_family_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && text::all_of_charset(name, "_.-");
}

}  // namespace

std::string encode_submission(const Submission& submission) {
  std::string tag = std::string(kTagPrefix) + "share=" + submission.share +
                    ",priority=" + std::to_string(submission.priority) +
                    ",keep_alive=" + std::to_string(submission.keep_alive_s);
  if (submission.image) {
    tag += ",image=" + submission.image->to_string();
  }
  if (!submission.home.empty()) {
    tag += ",home=" + submission.home;
  }
  return tag;
}

Result<Submission> decode_submission(std::string_view text) {
  if (!text.starts_with(kTagPrefix)) {
    return tag_error(text, "wrong shape");
  }
  std::vector<std::string_view> words = text::split(text.substr(kTagPrefix.size()), ',');
  words.insert(words.begin(), kTagPrefix);
  if (words.size() < 4 || words.size() > 6) {
    return tag_error(text, "wrong shape");
  }
  Submission submission;
  const auto share =
      words[1] == "share=" ? std::optional<std::string_view>("") : value_of(words[1], "share");
  if (!share) {
    return tag_error(text, "no share=");
  }
  if (*share == kUnlistedShare) {
    submission.share = std::string(kUnlistedShare);
  } else if (!share->empty()) {
    Result<std::string> name = parse_share_name(*share);
    if (!name || name.value() != *share) {
      return tag_error(text, "bad share");
    }
    submission.share = name.value();
  }
  const auto priority = value_of(words[2], "priority");
  Result<int> parsed_priority = parse_share_priority(priority.value_or(""));
  if (!parsed_priority || std::to_string(parsed_priority.value()) != *priority) {
    return tag_error(text, "bad priority");
  }
  submission.priority = parsed_priority.value();
  const auto keep_alive = value_of(words[3], "keep_alive");
  Result<int64_t> parsed_keep_alive =
      parse_keep_alive(keep_alive.value_or(""), std::numeric_limits<int64_t>::max());
  if (!parsed_keep_alive || std::to_string(parsed_keep_alive.value()) != *keep_alive) {
    return tag_error(text, "bad keep_alive");
  }
  submission.keep_alive_s = parsed_keep_alive.value();
  size_t next = 4;
  if (next < words.size() && words[next].starts_with("image=")) {
    const auto image = value_of(words[next++], "image");
    Result<ImageRef> parsed_image = parse_image_ref(image.value_or(""));
    if (!parsed_image || parsed_image.value().to_string() != *image) {
      return tag_error(text, "bad image");
    }
    submission.image = parsed_image.value();
  }
  if (next < words.size()) {
    const auto home = value_of(words[next++], "home");
    if (!home || !valid_family_name(*home)) {
      return tag_error(text, "bad home");
    }
    submission.home = std::string(*home);
  }
  if (next != words.size()) {
    return tag_error(text, "wrong shape");
  }
  return submission;
}

AdminCommentParts split_admin_comment(std::string_view admin_comment) {
  const size_t space = admin_comment.find(' ');
  if (space == std::string_view::npos) return {admin_comment, {}};
  return {admin_comment.substr(0, space), admin_comment.substr(space)};
}

}  // namespace shareq
