#include "policy/warm_reclaim.hpp"

#include <algorithm>
#include <map>

#include "policy/quota_math.hpp"

namespace shareq::policy {

std::vector<uint64_t> pools_to_end(const Ledger& ledger, const PendingJob& job, FamilyId family,
                                   int64_t amount, std::span<const HeldCapacity> held) {
  if (math::add(ledger.usage(job.share, family), amount) > ledger.quota(job.share, family)) {
    return {};  // not within quota: it does not reclaim
  }
  const int64_t need = math::sub(math::add(ledger.used(family), amount), ledger.capacity(family));
  if (need <= 0) return {};
  std::vector<const HeldCapacity*> left;
  for (const HeldCapacity& h : held) {
    if (h.family == family && h.share != job.share && h.amount > 0) left.push_back(&h);
  }
  std::map<ShareId, int64_t> over;  // what each share borrows after the picks so far
  for (const HeldCapacity* h : left) over[h->share] = ledger.borrowed(h->share, family);

  std::vector<const HeldCapacity*> picked;
  int64_t freed = 0;
  while (freed < need) {
    const HeldCapacity* best = nullptr;
    for (const HeldCapacity* h : left) {
      if (over[h->share] < h->amount) continue;  // would take its share below its quota
      if (best == nullptr || over[h->share] > over[best->share] ||
          (over[h->share] == over[best->share] &&
           (h->amount > best->amount || (h->amount == best->amount && h->pool < best->pool)))) {
        best = h;
      }
    }
    if (best == nullptr) break;
    picked.push_back(best);
    freed = math::add(freed, best->amount);
    over[best->share] -= best->amount;
    std::erase(left, best);
  }
  if (freed >= need) {  // drop what later picks made unnecessary
    for (size_t i = picked.size(); i-- > 0;) {
      if (freed - picked[i]->amount >= need) {
        freed -= picked[i]->amount;
        picked.erase(picked.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  std::vector<uint64_t> ids;
  for (const HeldCapacity* h : picked) ids.push_back(h->pool);
  return ids;
}

}  // namespace shareq::policy
