// Not slurm_xlator.h: its `#define error slurm_error` would rename Result::error().
#include "image_digest.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "config_state.hpp"
#include "image_digests.hpp"
#include "imagecache/store.hpp"
#include "log.hpp"
#include "flags.hpp"

namespace shareq::submit {
namespace {

// One thread that asks the store, as job_submit's init started it. Its flags are its own, so a
// thread that fini had to leave behind (below) never takes a later init's questions.
struct Asker {
  // Set by fini: the question in flight is abandoned (TransferLimits::cancel, within about a
  // second) and the thread ends instead of taking the next question.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable ended_cv;
  bool ended = false;  // under mutex
};

// How long fini waits for the thread to end after cancelling its question. fini runs under
// slurmctld's config, job, node and partition write locks (22.05: `scontrol reconfigure` or
// SIGHUP after JobSubmitPlugins changed; any release: shutdown in builds with MEMORY_LEAK_DEBUG).
// Curl sees the cancel at its next progress call, about once a second while a silent store holds
// the request, so the wait covers that; a name that resolves slowly or a directory store on a
// hung mount does not end even then, and is left to end by itself: the plugin is linked with
// -z nodelete, so its code (and libcurl) stays mapped for that thread after Slurm unloads it,
// and the thread's flags are its own.
constexpr auto kFiniWait = std::chrono::seconds(2);

// Never destroyed: at shutdown slurmctld calls fini only in builds with MEMORY_LEAK_DEBUG and
// otherwise ends with exit(), where destroying a std::thread that still runs calls std::terminate
// (a SIGABRT at every shutdown). The thread may still wait for a question then, or ask one, on a
// queue and with a shareq.conf that are never destroyed either (ControllerState::digests and
// config_part()).
std::thread& asker = *new std::thread;
std::shared_ptr<Asker>& asker_state = *new std::shared_ptr<Asker>;

// The store's answer about `name`, asked now with short timeouts; std::nullopt when the question
// was cancelled (`stop`, set by fini) before an answer came.
std::optional<warm::DigestAnswer> ask_store(const std::string& name,
                                            const std::atomic<bool>& stop) {
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
    limits.cancel = &stop;
    Result<std::string> published = store.value().published_digest(name, limits);
    if (!published && stop.load()) return std::nullopt;  // no answer: nothing to record
    if (published) {
      answer.digest = published.value();
    } else {
      answer.problem = published.error().message;
    }
  }
  answer.answered_at = time(nullptr);
  return answer;
}

void ask_one(const std::string& name, const std::atomic<bool>& stop) {
  try {
    const std::optional<warm::DigestAnswer> answer = ask_store(name, stop);
    if (!answer) {
      ctld::image_not_asked(name);  // asked again once a thread runs again
      return;
    }
    if (!answer->problem.empty()) {
      ctld::log_info("job_submit: image %s: %s", name.c_str(), answer->problem.c_str());
    }
    ctld::image_answered(name, *answer);
  } catch (const std::exception& e) {
    ctld::log_error("job_submit: asking the image store about %s: %s", name.c_str(), e.what());
    ctld::image_answered(name,
                         {time(nullptr), time(nullptr), "", "image " + name + ": internal error"});
  }
}

void ask_until_stopped(const std::shared_ptr<Asker>& self) {
  while (!self->stop.load()) {
    const std::optional<std::string> name = ctld::next_image_question();
    if (!name) break;
    ask_one(*name, self->stop);
  }
  {
    const std::lock_guard<std::mutex> lock(self->mutex);
    self->ended = true;
  }
  self->ended_cv.notify_all();
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
  ctld::image_questions_start();
  asker_state = std::make_shared<Asker>();
  asker = std::thread(ask_until_stopped, asker_state);
}

bool stop_asking_store() {
  if (!asker.joinable()) return true;
  Asker& state = *asker_state;
  state.stop.store(true);  // before the wait: the question in flight ends within a second
  ctld::image_questions_stop();
  bool ended = false;
  {
    std::unique_lock<std::mutex> lock(state.mutex);
    ended = state.ended_cv.wait_for(lock, kFiniWait, [&] { return state.ended; });
  }
  if (ended) {
    asker.join();
    return true;
  }
  ctld::log_error(
      "job_submit: the image store's question in flight did not end within %lld s of fini (a "
      "name that does not resolve, or a hung mount); the thread is left to end by itself",
      static_cast<long long>(kFiniWait.count()));
  asker.detach();
  return false;
}

}  // namespace shareq::submit
