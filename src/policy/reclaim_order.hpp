// The reclaim order of victims.hpp, produced lazily (internal to the policy core).
//
// Candidates are bucketed by share in one pass. A heap holds each share's next victim, keyed by
// what the share borrows just before it would be taken, then by the share's own order; a share's
// bucket is only sorted once one of its jobs has been taken. Taking k victims among n running
// jobs of S shares costs O(n + S + k log S + the sorted buckets), instead of sorting all n.
#pragma once

#include <span>
#include <vector>

#include "policy/jobs.hpp"
#include "policy/ledger.hpp"

namespace shareq::policy {

// Inside one share: lowest priority, then least run time lost (latest start), then highest id.
bool before_in_share(const RunningJob& a, const RunningJob& b);

class ReclaimOrder {
 public:
  // Jobs of shares other than `self` over quota in `family`, with amount > 0, and (when
  // `honour_min_runtime`) run for at least ReclaimMinRuntime by `now`. Keeps pointers into
  // `running`, which must outlive the order.
  ReclaimOrder(const Ledger& ledger, ShareId self, FamilyId family,
               std::span<const RunningJob> running, Time now, bool honour_min_runtime);

  // The next victim, or nullptr when no candidate is left.
  const RunningJob* next();

 private:
  struct Bucket {
    size_t begin = 0;
    size_t end = 0;
    size_t cursor = 0;  // once sorted: where the search for the next victim resumes
    int64_t room = 0;   // what the share still borrows
    bool sorted = false;
  };
  struct Head {
    int64_t room;
    const RunningJob* job;
    size_t bucket;
  };

  static bool later(const Head& a, const Head& b);  // heap order: b goes first
  void fill(const Ledger& ledger, ShareId self, FamilyId family,
            std::span<const RunningJob> running, Time now, bool honour_min_runtime);
  const RunningJob* first_fit(Bucket& bucket) const;
  void advance(size_t bucket, const RunningJob* taken);
  void push(size_t bucket);

  std::vector<const RunningJob*> jobs_;  // grouped by bucket
  std::vector<Bucket> buckets_;
  std::vector<Head> heap_;
};

}  // namespace shareq::policy
