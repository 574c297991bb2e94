// Not slurm_xlator.h: its `#define error slurm_error` would rename Result::error().
#include "image_digest.hpp"

#include <atomic>
#include <optional>
#include <thread>

#include "config_state.hpp"
#include "image_digests.hpp"
#include "imagecache/store.hpp"
#include "log.hpp"
#include "flags.hpp"

namespace shareq::submit {
namespace {

// job_submit's init/fini start and join it (one plugin instance per process). Never destroyed:
// slurmctld calls fini only in builds with MEMORY_LEAK_DEBUG and otherwise ends with exit(),
// where destroying a std::thread that still runs calls std::terminate (a SIGABRT at every
// shutdown). The thread may still wait for a question then, on a queue that is never destroyed
// either (ControllerState::digests).
std::thread& asker = *new std::thread;

// Set by fini before it joins `asker`: the question in flight is abandoned at once (within
// about a second; TransferLimits::cancel) instead of fini holding slurmctld's locks until the
// store answers or the transfer limits end it. Cleared by init.
std::atomic<bool> stop_asking{false};

// The store's answer about `name`, asked now with short timeouts; std::nullopt when the question
// was cancelled (stop_asking) before an answer came.
std::optional<warm::DigestAnswer> ask_store(const std::string& name) {
  warm::DigestAnswer answer;
  answer.asked_at = time(nullptr);
  const auto loaded = ctld::current_config();
  if (!loaded || loaded->config().image_store.empty()) {
    answer.problem = "image " + name + ": no ImageStore is configured";
  } else if (auto store = imagecache::ImageStore::parse(loaded->config().image_store); !store) {
    answer.problem = "image " + name + ": ImageStore: " + store.error().message;
  } else {
    imagecache::TransferLimits limits;
    limits.connect_timeout_s = 3;
    limits.stall_timeout_s = 5;
    limits.transfer_timeout_s = 10;
    limits.cancel = &stop_asking;
    Result<std::string> published = store.value().published_digest(name, limits);
    if (!published && stop_asking.load()) return std::nullopt;  // no answer: nothing to record
    if (published) {
      answer.digest = published.value();
    } else {
      answer.problem = published.error().message;
    }
  }
  answer.answered_at = time(nullptr);
  return answer;
}

void ask_until_stopped() {
  while (const std::optional<std::string> name = ctld::next_image_question()) {
    try {
      const std::optional<warm::DigestAnswer> answer = ask_store(*name);
      if (!answer) {
        ctld::image_not_asked(*name);  // asked again once the thread runs again
        continue;
      }
      if (!answer->problem.empty()) {
        ctld::log_info("job_submit: image %s: %s", name->c_str(), answer->problem.c_str());
      }
      ctld::image_answered(*name, *answer);
    } catch (const std::exception& e) {
      ctld::log_error("job_submit: asking the image store about %s: %s", name->c_str(), e.what());
      ctld::image_answered(
          *name, {time(nullptr), time(nullptr), "", "image " + *name + ": internal error"});
    }
  }
}

}  // namespace

DigestOutcome submission_digest(const Config& config, const std::string& image, time_t now) {
  DigestOutcome out;
  const std::string flag(kImageFlag);
  Result<ImageRef> ref = parse_image_ref(image);
  if (!ref) {
    out.problem = ref.error().to_string();
    return out;
  }
  if (config.image_store.empty()) {
    if (ref.value().sha256) {
      out.digest = *ref.value().sha256;
    } else {
      out.problem = flag + ": image " + ref.value().name + ": no ImageStore is configured";
    }
    return out;
  }
  if (auto store = imagecache::ImageStore::parse(config.image_store); !store) {
    out.problem = flag + ": ImageStore: " + store.error().message;
    return out;
  }
  (void)ctld::image_digest_for(ref.value(), now, now);  // queues the question early
  return out;
}

void start_asking_store() {
  if (asker.joinable()) return;
  stop_asking.store(false);
  ctld::image_questions_start();
  asker = std::thread(ask_until_stopped);
}

void stop_asking_store() {
  stop_asking.store(true);  // before the join: the question in flight ends within a second
  ctld::image_questions_stop();
  if (asker.joinable()) asker.join();
}

}  // namespace shareq::submit
