// The flag parsers and validate_submission never crash; what they accept satisfies the
// documented ranges and survives the job tag round trip. The first byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "flags.hpp"
#include "job_tag.hpp"
#include "submission.hpp"

namespace {

using shareq::Result;

void require(bool condition) {
  if (!condition) std::abort();
}

const shareq::Config& cluster() {
  static const shareq::Config config = *shareq::parse_config(
                                            "Family=p4 Partitions=p4 Capacity=node=4\n"
                                            "Family=p5 Partitions=p5 Capacity=gres/gpu=32 "
                                            "Fallback=p4\n"
                                            "Share=ProdExp1 Family=p4 Quota=node=2\n"
                                            "Share=ProdExp2 Family=p4 Quota=node=2\n"
                                            "Share=ProdExp2 Family=p5 Quota=gres/gpu=16\n"
                                            "Share=Research Family=p5 Quota=gres/gpu=16\n",
                                            "fuzz.conf")
                                            .config;
  return config;
}

// Lines: share, priority, image, keep-alive, account, then partitions. A line starting with
// '-' is an absent flag.
void fuzz_validate(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  lines.resize(std::max<size_t>(lines.size(), 5));
  auto flag = [&](size_t i) {
    return lines[i].starts_with('-') ? std::nullopt : std::optional<std::string>(lines[i]);
  };
  const shareq::SubmitFlags flags{flag(0), flag(1), flag(2), flag(3)};
  const shareq::JobContext job{lines[4], std::vector<std::string>(lines.begin() + 5, lines.end())};
  const Result<shareq::Submission> result = shareq::validate_submission(cluster(), flags, job);
  if (!result) {
    require(!result.error().field.empty() && !result.error().message.empty());
    return;
  }
  const shareq::Submission& submission = result.value();
  require(submission.priority >= 0 && submission.priority <= 99);
  require(submission.keep_alive_s >= 0 && submission.keep_alive_s <= cluster().max_keep_alive_s);
  const Result<shareq::Submission> decoded =
      shareq::decode_submission(shareq::encode_submission(submission));
  require(decoded.ok() && decoded.value() == submission);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      const Result<std::string> share = shareq::parse_share_name(text);
      if (share) {
        require(share.value() == shareq::to_lower(share.value()));
        require(shareq::parse_share_name(share.value()).ok());
      }
      break;
    }
    case 1: {
      const Result<int> priority = shareq::parse_share_priority(text);
      if (priority) require(priority.value() >= 0 && priority.value() <= 99);
      break;
    }
    case 2: {
      const int64_t max = data[0] < 128 ? 3600 : std::numeric_limits<int64_t>::max();
      const Result<int64_t> keep_alive = shareq::parse_keep_alive(text, max);
      if (keep_alive) require(keep_alive.value() >= 0 && keep_alive.value() <= max);
      break;
    }
    default:
      fuzz_validate(text);
  }
  return 0;
}
