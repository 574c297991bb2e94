// job_submit/shareq's thread that asks the image store (plugins/job_submit/image_digest.cpp),
// with the controller's digest book (plugins/ctld/image_digests.cpp) and a store that accepts
// the question and never answers. job_submit's fini (stop_asking_store) runs under slurmctld's
// write locks at `scontrol reconfigure` and the plugin is unloaded after it: it must cancel the
// question in flight and return at once, not after the transfer limits (5 s stall, 10 s whole),
// and the cancelled question must leave no answer in the book, so the image is asked about again
// once the thread runs again.
#include <atomic>
#include <chrono>
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

}  // namespace

extern "C" void queue_job_scheduler(void) { ++g_scheduler_kicks; }

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

  std::future<void> stopped = std::async(std::launch::async, submit::stop_asking_store);
  if (stopped.wait_until(asked_at + 4s) != std::future_status::ready) {
    stopped.wait();  // the thread must end before the test does
    fail_msg("stop_asking_store() waited for the store: it did not cancel the question");
  }
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
  submit::stop_asking_store();
  assert_int_equal(g_scheduler_kicks.load(), 0);
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(fini_cancels_the_question_in_flight),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
