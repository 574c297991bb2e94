#include "image_digests.hpp"

#include <mutex>

#include "controller_state.hpp"
#include "slurmctld_headers.hpp"

namespace shareq::ctld {

warm::DigestVerdict image_digest_for(const ImageRef& image, time_t submitted_at, time_t now) {
  DigestPart& q = controller_state().digests;
  const RankedLock lock(q.mutex);
  warm::DigestVerdict v = q.book.verdict(image, submitted_at, now);
  if (v.ask && !q.stopped) {
    q.book.asking(image.name, now);
    q.queue.push_back(image.name);
    q.ready.notify_one();
  }
  return v;
}

std::optional<std::string> next_image_question() {
  DigestPart& q = controller_state().digests;
  std::unique_lock<RankedMutex> lock(q.mutex);
  q.ready.wait(lock, [&] { return q.stopped || !q.queue.empty(); });
  if (q.stopped) return std::nullopt;
  std::string name = std::move(q.queue.front());
  q.queue.pop_front();
  return name;
}

void image_answered(const std::string& name, const warm::DigestAnswer& answer) {
  {
    DigestPart& q = controller_state().digests;
    const RankedLock lock(q.mutex);
    q.book.answered(name, answer);
  }
  assert_no_shareq_lock("queue_job_scheduler");
  queue_job_scheduler();
}

void image_not_asked(const std::string& name) {
  DigestPart& q = controller_state().digests;
  const RankedLock lock(q.mutex);
  q.book.not_asked(name);
}

void image_questions_start() {
  DigestPart& q = controller_state().digests;
  const RankedLock lock(q.mutex);
  q.stopped = false;
}

void image_questions_stop() {
  DigestPart& q = controller_state().digests;
  const RankedLock lock(q.mutex);
  q.stopped = true;
  for (const std::string& name : q.queue) q.book.not_asked(name);  // asked again once restarted
  q.queue.clear();
  q.ready.notify_all();
}

}  // namespace shareq::ctld
