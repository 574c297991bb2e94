// TransferLimits::cancel: a request to a store that accepts the connection and never answers
// ends soon after its caller sets the flag (job_submit's fini must not wait out the transfer
// limit under slurmctld's locks), with an error that says it was cancelled; a flag set before
// the request starts stops it too, and a flag never set changes nothing.
#include <atomic>
#include <chrono>
#include <future>
#include <string>

#include <gtest/gtest.h>

#include "canned_store.hpp"
#include "imagecache/http.hpp"
#include "imagecache/store.hpp"
#include "silent_store.hpp"

namespace shareq::imagecache {
namespace {

using std::chrono::steady_clock;
using testing::SilentStore;
using namespace std::chrono_literals;

// job_submit's limits for the question, with the stall limit out of the way: left alone, the
// request below ends only by the 10 s limit for a whole transfer.
TransferLimits QuestionLimits(const std::atomic<bool>* cancel) {
  TransferLimits limits;
  limits.connect_timeout_s = 3;
  limits.stall_timeout_s = 60;
  limits.transfer_timeout_s = 10;
  limits.cancel = cancel;
  return limits;
}

TEST(HttpCancelTest, ACancelStopsARequestTheStoreNeverAnswers) {
  SilentStore silent;
  const Result<ImageStore> store = ImageStore::parse(silent.url());
  ASSERT_TRUE(store) << store.error().to_string();
  std::atomic<bool> cancel{false};
  const TransferLimits limits = QuestionLimits(&cancel);
  // Before the request starts: its 10 s limit cannot fire before this moment plus 10 s.
  const auto asked_at = steady_clock::now();
  std::future<Result<std::string>> answer = std::async(
      std::launch::async, [&] { return store.value().published_digest("llama", limits); });
  const bool received = silent.received_request(5s);
  cancel.store(true);
  ASSERT_TRUE(received) << "the request never reached the store";
  // Well before the transfer limit could end it: only the cancel can have.
  ASSERT_EQ(answer.wait_until(asked_at + 8s), std::future_status::ready)
      << "the request went on after it was cancelled";
  const Result<std::string> digest = answer.get();
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("/images/llama.sha256 failed: cancelled"),
            std::string::npos)
      << digest.error().message;
}

TEST(HttpCancelTest, ACancelSetBeforeTheRequestStopsIt) {
  SilentStore silent;
  const Result<ImageStore> store = ImageStore::parse(silent.url());
  ASSERT_TRUE(store) << store.error().to_string();
  const std::atomic<bool> cancel{true};
  const TransferLimits limits = QuestionLimits(&cancel);
  const auto asked_at = steady_clock::now();
  std::future<Result<std::string>> answer = std::async(
      std::launch::async, [&] { return store.value().published_digest("llama", limits); });
  ASSERT_EQ(answer.wait_until(asked_at + 8s), std::future_status::ready);
  const Result<std::string> digest = answer.get();
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("cancelled"), std::string::npos) << digest.error().message;
}

TEST(HttpCancelTest, AFlagNeverSetLetsTheTransferFinish) {
  const testing::CannedStore canned("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  const std::atomic<bool> cancel{false};
  const Result<std::string> body = http_get_small("http://store.test/llama.sha256", 4096,
                                                  QuestionLimits(&cancel), canned.connections());
  ASSERT_TRUE(body) << body.error().to_string();
  EXPECT_EQ(body.value(), "hello");
}

}  // namespace
}  // namespace shareq::imagecache
