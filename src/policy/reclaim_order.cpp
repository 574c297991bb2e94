// ReclaimOrder: the reclaim order as a heap over shares (see reclaim_order.hpp).
#include "policy/reclaim_order.hpp"

#include <algorithm>

namespace shareq::policy {

namespace {

bool eligible(const Ledger& ledger, const RunningJob& job, ShareId self, FamilyId family, Time now,
              bool honour_min_runtime) {
  if (job.family != family || job.share == self || job.amount <= 0) return false;
  if (ledger.borrowed(job.share, family) <= 0) return false;
  return !honour_min_runtime || now - job.start_time >= ledger.policy().reclaim_min_runtime_s;
}

}  // namespace

bool before_in_share(const RunningJob& a, const RunningJob& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.start_time != b.start_time) return a.start_time > b.start_time;
  return a.id > b.id;
}

ReclaimOrder::ReclaimOrder(const Ledger& ledger, ShareId self, FamilyId family,
                           std::span<const RunningJob> running, Time now, bool honour_min_runtime) {
  fill(ledger, self, family, running, now, honour_min_runtime);
  for (size_t b = 0; b < buckets_.size(); ++b) push(b);
}

// Counting sort of the candidates by share: one bucket per share that has any.
void ReclaimOrder::fill(const Ledger& ledger, ShareId self, FamilyId family,
                        std::span<const RunningJob> running, Time now, bool honour_min_runtime) {
  std::vector<size_t> count(ledger.policy().share_count() + 1, 0);
  for (const RunningJob& job : running) {
    if (eligible(ledger, job, self, family, now, honour_min_runtime)) ++count[job.share + 1];
  }
  std::vector<size_t> bucket_of(count.size(), 0);
  for (size_t s = 1; s < count.size(); ++s) {
    if (count[s] > 0) {
      bucket_of[s - 1] = buckets_.size();
      const int64_t room = ledger.borrowed(static_cast<ShareId>(s - 1), family);
      buckets_.push_back({count[s - 1], count[s - 1] + count[s], 0, room, false});
    }
    count[s] += count[s - 1];
  }
  jobs_.resize(count.back());
  std::vector<size_t> next(buckets_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) next[b] = buckets_[b].begin;
  for (const RunningJob& job : running) {
    if (eligible(ledger, job, self, family, now, honour_min_runtime)) {
      jobs_[next[bucket_of[job.share]]++] = &job;
    }
  }
}

// The share's next victim: the first job in its order that still fits what it borrows.
const RunningJob* ReclaimOrder::first_fit(Bucket& bucket) const {
  if (bucket.sorted) {
    while (bucket.cursor < bucket.end && jobs_[bucket.cursor]->amount > bucket.room) {
      ++bucket.cursor;  // too big now, so too big for good: the room only shrinks
    }
    return bucket.cursor < bucket.end ? jobs_[bucket.cursor] : nullptr;
  }
  const RunningJob* best = nullptr;
  for (size_t i = bucket.begin; i < bucket.end; ++i) {
    const RunningJob* job = jobs_[i];
    if (job->amount <= bucket.room && (best == nullptr || before_in_share(*job, *best))) best = job;
  }
  return best;
}

void ReclaimOrder::advance(size_t b, const RunningJob* taken) {
  Bucket& bucket = buckets_[b];
  bucket.room -= taken->amount;
  if (!bucket.sorted) {
    const auto first = jobs_.begin() + static_cast<std::ptrdiff_t>(bucket.begin);
    const auto last = jobs_.begin() + static_cast<std::ptrdiff_t>(bucket.end);
    std::sort(first, last,
              [](const RunningJob* x, const RunningJob* y) { return before_in_share(*x, *y); });
    bucket.sorted = true;
    bucket.cursor = static_cast<size_t>(std::find(first, last, taken) - jobs_.begin());
  }
  ++bucket.cursor;
}

// Heap order: most borrowed room first, then the share's own order.
bool ReclaimOrder::later(const Head& a, const Head& b) {
  if (a.room != b.room) return a.room < b.room;
  return before_in_share(*b.job, *a.job);
}

void ReclaimOrder::push(size_t b) {
  const RunningJob* job = first_fit(buckets_[b]);
  if (job == nullptr) return;
  heap_.push_back({buckets_[b].room, job, b});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

const RunningJob* ReclaimOrder::next() {
  if (heap_.empty()) return nullptr;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  const Head head = heap_.back();
  heap_.pop_back();
  advance(head.bucket, head.job);
  push(head.bucket);
  return head.job;
}

}  // namespace shareq::policy
