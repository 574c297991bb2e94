// job_submit/shareq's thread that asks the image store (plugins/job_submit/image_digest.cpp),
// with the controller's digest book (plugins/ctld/image_digests.cpp) and a store that accepts
// the question and never answers. job_submit's fini (stop_asking_store) runs under slurmctld's
// write locks at `scontrol reconfigure` and the plugin is unloaded after it: it must cancel the
// question in flight and return at once, not after the transfer limits (5 s stall, 10 s whole),
// and the cancelled question must leave no answer in the book, so the image is asked about again
// once the thread runs again. Where a cancel cannot reach (curl waits for a name to resolve;
// getaddrinfo is interposed below to hang for one host), fini still returns within its bound and
// leaves the thread to end by itself, which then records nothing either.
#include <dlfcn.h>
#include <netdb.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "config_state.hpp"
#include "flags.hpp"
#include "image_digest.hpp"
#include "image_digests.hpp"
#include "fake_ctld_log.hpp"
#include "silent_store.hpp"
#include "submit_shim.h"
#include "two_family_conf.h"

// Last: cmocka's macros (fail, ...) would rename names in the C++ headers.
extern "C" {
#include <cmocka.h>
}

namespace {

using shareq::imagecache::testing::SilentStore;
using std::chrono::steady_clock;
using namespace std::chrono_literals;

std::shared_ptr<const shareq::ctld::LoadedConfig> g_config;
std::atomic<int> g_scheduler_kicks{0};  // answers recorded (image_answered wakes the scheduler)

void set_image_store(const std::string& location) {
  const std::string text = std::string(SHAREQ_TWO_FAMILY_CONF) + "ImageStore=" + location + "\n";
  char* errors = nullptr;
  shareq_conf_t* conf = shareq_conf_parse(text.c_str(), "shareq.conf", &errors);
  if (conf == nullptr) {
    std::fprintf(stderr, "bad shareq.conf: %s\n", errors != nullptr ? errors : "?");
    std::abort();
  }
  g_config = std::make_shared<const shareq::ctld::LoadedConfig>(
      shareq::ctld::LoadedConfig{*conf, shareq::policy::Policy::compile(conf->config), 1});
  shareq_conf_free(conf);
}

// getaddrinfo for kHungHost blocks until the test releases it (a resolver that does not answer);
// every other name goes to libc's.
constexpr const char* kHungHost = "hung-dns.test";
std::mutex g_dns_mutex;
std::condition_variable g_dns_cv;
bool g_dns_released = false;
std::atomic<int> g_dns_waiting{0};
std::atomic<int> g_dns_returned{0};

void release_dns() {
  {
    const std::lock_guard<std::mutex> lock(g_dns_mutex);
    g_dns_released = true;
  }
  g_dns_cv.notify_all();
}

}  // namespace

extern "C" void queue_job_scheduler(void) { ++g_scheduler_kicks; }

// libcurl's threaded resolver calls it from its own thread.
extern "C" int getaddrinfo(const char* node, const char* service, const struct addrinfo* hints,
                           struct addrinfo** res) {
  if (node != nullptr && std::strcmp(node, kHungHost) == 0) {
    ++g_dns_waiting;
    std::unique_lock<std::mutex> lock(g_dns_mutex);
    g_dns_cv.wait_for(lock, 60s, [] { return g_dns_released; });
    ++g_dns_returned;
    return EAI_AGAIN;
  }
  using Real = int (*)(const char*, const char*, const struct addrinfo*, struct addrinfo**);
  static const auto real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "getaddrinfo"));
  return real(node, service, hints, res);
}

namespace shareq::ctld {

std::shared_ptr<const LoadedConfig> current_config() { return g_config; }

}  // namespace shareq::ctld

namespace {

namespace ctld = shareq::ctld;
namespace submit = shareq::submit;

// A job submitted at `now` with --image=llama: queues the question when the book says to ask.
shareq::warm::DigestVerdict submit_llama(time_t now) {
  const shareq::Result<shareq::ImageRef> ref = shareq::parse_image_ref("llama");
  assert_true(static_cast<bool>(ref));
  return ctld::image_digest_for(ref.value(), now, now);
}

void fini_cancels_the_question_in_flight(void** state) {
  (void)state;
  SilentStore silent;
  set_image_store(silent.url());
  submit::start_asking_store();
  const time_t now = time(nullptr);
  // Before the question is sent: neither transfer limit can end it within 5 s of this moment.
  const auto asked_at = steady_clock::now();
  assert_true(submit_llama(now).ask);
  assert_true(silent.received_request(3s));

  std::future<bool> stopped = std::async(std::launch::async, submit::stop_asking_store);
  if (stopped.wait_until(asked_at + 4s) != std::future_status::ready) {
    stopped.wait();  // the thread must end before the test does
    fail_msg("stop_asking_store() waited for the store: it did not cancel the question");
  }
  assert_true(stopped.get());                     // the cancel ended the thread: not left behind
  assert_int_equal(g_scheduler_kicks.load(), 0);  // no answer was recorded

  // The book holds no answer and no question in flight: a job asks again.
  const shareq::warm::DigestVerdict after = submit_llama(now);
  assert_true(after.ask);
  assert_false(after.digest.has_value());
  assert_null(strstr(after.wait_reason.c_str(), "cancelled"));

  // job_submit's init again: the question is asked (the flag was cleared).
  submit::start_asking_store();
  assert_true(submit_llama(now).ask);
  assert_true(silent.received_request(3s));
  assert_true(submit::stop_asking_store());
  assert_int_equal(g_scheduler_kicks.load(), 0);
}

// Polls `done` every 10 ms for at most `limit`.
template <typename Done>
bool eventually(Done done, std::chrono::milliseconds limit) {
  const auto until = steady_clock::now() + limit;
  while (!done()) {
    if (steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

void fini_leaves_a_question_stuck_in_name_resolution(void** state) {
  (void)state;
  set_image_store(std::string("http://") + kHungHost + "/images");
  g_scheduler_kicks = 0;
  submit::start_asking_store();
  const time_t now = time(nullptr);
  assert_true(submit_llama(now).ask);
  assert_true(eventually([] { return g_dns_waiting.load() > 0; }, 5000ms));

  const auto fini_at = steady_clock::now();
  std::future<bool> stopped = std::async(std::launch::async, submit::stop_asking_store);
  const bool returned = stopped.wait_until(fini_at + 4s) == std::future_status::ready;
  if (!returned) release_dns();  // so that the test ends instead of hanging
  assert_true(returned);
  assert_false(stopped.get());  // left behind, not joined

  // A later init runs a thread of its own while the old one still waits, and a later fini ends it.
  submit::start_asking_store();
  release_dns();
  assert_true(eventually([] { return g_dns_returned.load() > 0; }, 5000ms));
  assert_true(submit::stop_asking_store());
  // The old thread ends by itself and records no answer: the image is asked about again (with
  // the questions stopped, asking queues nothing).
  assert_true(eventually([&] { return submit_llama(now).ask; }, 5000ms));
  assert_int_equal(g_scheduler_kicks.load(), 0);
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(fini_cancels_the_question_in_flight),
      cmocka_unit_test(fini_leaves_a_question_stuck_in_name_resolution),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
