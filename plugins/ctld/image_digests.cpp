#include "image_digests.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>

#include "slurmctld_headers.hpp"

namespace shareq::ctld {
namespace {

struct Questions {
  std::mutex mutex;
  std::condition_variable ready;
  warm::DigestBook book;
  std::deque<std::string> queue;
  bool stopped = true;  // until job_submit's thread takes questions
};

Questions& questions() {
  static Questions* q = new Questions;  // never destroyed: threads may outlive static destructors
  return *q;
}

}  // namespace

warm::DigestVerdict image_digest_for(const ImageRef& image, time_t submitted_at, time_t now) {
  Questions& q = questions();
  std::lock_guard<std::mutex> lock(q.mutex);
  warm::DigestVerdict v = q.book.verdict(image, submitted_at, now);
  if (v.ask && !q.stopped) {
    q.book.asking(image.name, now);
    q.queue.push_back(image.name);
    q.ready.notify_one();
  }
  return v;
}

std::optional<std::string> next_image_question() {
  Questions& q = questions();
  std::unique_lock<std::mutex> lock(q.mutex);
  q.ready.wait(lock, [&] { return q.stopped || !q.queue.empty(); });
  if (q.stopped) return std::nullopt;
  std::string name = std::move(q.queue.front());
  q.queue.pop_front();
  return name;
}

void image_answered(const std::string& name, const warm::DigestAnswer& answer) {
  {
    Questions& q = questions();
    std::lock_guard<std::mutex> lock(q.mutex);
    q.book.answered(name, answer);
  }
  queue_job_scheduler();
}

void image_questions_start() {
  Questions& q = questions();
  std::lock_guard<std::mutex> lock(q.mutex);
  q.stopped = false;
}

void image_questions_stop() {
  Questions& q = questions();
  std::lock_guard<std::mutex> lock(q.mutex);
  q.stopped = true;
  for (const std::string& name : q.queue) q.book.not_asked(name);  // asked again once restarted
  q.queue.clear();
  q.ready.notify_all();
}

}  // namespace shareq::ctld
