// prioritize: share ranks once per call, then each job from its best family.
#include "policy/ordering.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include "policy/quota_math.hpp"

namespace shareq::policy {

namespace {

struct Pair {
  size_t index;  // share * family_count + family
  int64_t usage;
  int64_t quota;
  double decayed;
  bool unlisted;   // the implicit share of unlisted accounts: last among borrowers
  int64_t weight;  // BorrowWeight, in thousandths
};

// usage/quota, exactly; a quota of 0 counts as fully used (1).
bool less_used(const Pair& a, const Pair& b) {
  const auto num = [](const Pair& p) -> __int128 { return p.quota == 0 ? 1 : p.usage; };
  const auto den = [](const Pair& p) -> __int128 { return p.quota == 0 ? 1 : p.quota; };
  return num(a) * den(b) < num(b) * den(a);
}

// Decayed usage relative to quota and BorrowWeight; quota 0 after every share with a quota, by
// decayed usage.
bool less_decayed(const Pair& a, const Pair& b) {
  if (a.unlisted != b.unlisted) return b.unlisted;
  if ((a.quota == 0) != (b.quota == 0)) return a.quota != 0;
  if (a.quota == 0) return a.decayed < b.decayed;
  const auto entitled = [](const Pair& p) {
    return static_cast<double>(p.quota) * static_cast<double>(p.weight);
  };
  return a.decayed / entitled(a) < b.decayed / entitled(b);
}

// Dense ranks, the best pair (first after sorting by `less`) highest, at most `max_rank`: with
// more distinct standings than that, the lowest ones tie at 1.
template <typename Less>
void assign_ranks(std::vector<Pair>& pairs, Less less, uint32_t max_rank,
                  std::vector<uint32_t>& out) {
  std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
    return less(a, b) || (!less(b, a) && a.index < b.index);
  });
  size_t distinct = 0;
  std::vector<size_t> dense(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || less(pairs[i - 1], pairs[i])) ++distinct;
    dense[i] = distinct;
  }
  const size_t top = std::min<size_t>(distinct, max_rank);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const size_t rank = dense[i] >= top ? 1 : top + 1 - dense[i];
    out[pairs[i].index] = static_cast<uint32_t>(rank);
  }
}

double decayed_at(const DecayedUsage& usage, size_t index, size_t expected_size) {
  if (usage.size() != expected_size) return 0;
  const double value = usage[index];
  return std::isfinite(value) && value > 0 ? value : 0;
}

std::vector<Pair> ranked_pairs(const Ledger& ledger, const DecayedUsage& usage) {
  const Policy& policy = ledger.policy();
  const size_t families = policy.family_count();
  const size_t size = policy.share_count() * families;
  std::vector<Pair> pairs;
  for (size_t s = 0; s < policy.share_count(); ++s) {
    for (size_t f = 0; f < families; ++f) {
      const auto share = static_cast<ShareId>(s);
      const auto family = static_cast<FamilyId>(f);
      const QuotaRule* rule = policy.rule(share, family);
      if (rule == nullptr) continue;
      const size_t index = s * families + f;
      pairs.push_back({index, ledger.usage(share, family), rule->quota,
                       decayed_at(usage, index, size), policy.is_unlisted(share),
                       rule->borrow_weight});
    }
  }
  return pairs;
}

struct Standing {
  bool within = false;
  uint32_t size = 0;  // a borrower's size class under BorrowOrder=largest, else 0
  uint32_t rank = 0;
  bool operator>(const Standing& o) const {
    if (within != o.within) return within;
    return size != o.size ? size > o.size : rank > o.rank;
  }
};

PriorityFactors pack(const Standing& best, int priority, int64_t nice) {
  PriorityFactors factors;
  factors.within_quota = best.within;
  factors.tier = best.within ? kWithinQuotaTier : 0;
  factors.size_class = best.size;
  factors.share_rank = best.rank;
  factors.job_priority = static_cast<uint32_t>(std::clamp(priority, 0, 99));
  factors.nice = nice;
  factors.nice_level = nice_level(nice);
  factors.priority = factors.tier + factors.size_class * kSizeClassWeight +
                     factors.share_rank * kShareRankWeight +
                     factors.job_priority * kJobPriorityWeight + factors.nice_level;
  return factors;
}

constexpr int64_t kExactNice = 1200;  // |nice| up to this maps one to one
constexpr uint32_t kCoarseLevels = 99;
constexpr double kMaxNice = 2147483648.0;  // beyond Slurm's largest nice (2^31 - 3)

// 1..kCoarseLevels for |nice| > kExactNice, on a log scale up to kMaxNice.
uint32_t coarse_step(int64_t magnitude) {
  const double span = std::log2(kMaxNice) - std::log2(static_cast<double>(kExactNice));
  const double at = std::log2(static_cast<double>(magnitude)) - std::log2(kExactNice);
  const auto step = static_cast<int64_t>(1 + at * (kCoarseLevels - 1) / span);
  return static_cast<uint32_t>(std::clamp<int64_t>(step, 1, kCoarseLevels));
}

}  // namespace

// The packing's parts stay in their places: nice under --share-priority, both under the share
// rank, everything under the tier.
static_assert(int64_t{99} * kJobPriorityWeight + kNiceCenter + kExactNice + kCoarseLevels <
              kShareRankWeight);
static_assert(int64_t{kMaxShareRank} * kShareRankWeight + kShareRankWeight <= kWithinQuotaTier);
static_assert(int64_t{kMaxBorrowRankBySize} * kShareRankWeight + kShareRankWeight <=
              kSizeClassWeight);
static_assert(int64_t{kMaxSizeClass} * kSizeClassWeight + kSizeClassWeight <= kWithinQuotaTier);

uint32_t size_class(int64_t amount) {
  if (amount < 1) return 1;
  const auto bits = static_cast<uint32_t>(std::bit_width(static_cast<uint64_t>(amount)));
  return std::min(bits, kMaxSizeClass);
}

uint32_t nice_level(int64_t nice) {
  if (nice >= -kExactNice && nice <= kExactNice) {
    return static_cast<uint32_t>(static_cast<int64_t>(kNiceCenter) - nice);
  }
  constexpr auto kLowestExact = static_cast<uint32_t>(kNiceCenter - kExactNice);   // 100
  constexpr auto kHighestExact = static_cast<uint32_t>(kNiceCenter + kExactNice);  // 2500
  if (nice > 0) return kLowestExact - coarse_step(nice);
  const int64_t magnitude = nice == INT64_MIN ? INT64_MAX : -nice;
  return kHighestExact + coarse_step(magnitude);
}

ShareRanks rank_shares(const Ledger& ledger, const DecayedUsage& usage) {
  const Policy& policy = ledger.policy();
  ShareRanks ranks;
  ranks.family_count = policy.family_count();
  ranks.within.assign(policy.share_count() * policy.family_count(), 0);
  ranks.borrow.assign(ranks.within.size(), 0);
  std::vector<Pair> pairs = ranked_pairs(ledger, usage);
  assign_ranks(pairs, less_used, kMaxShareRank, ranks.within);
  assign_ranks(pairs, less_decayed,
               policy.borrow_largest_first ? kMaxBorrowRankBySize : kMaxShareRank, ranks.borrow);
  return ranks;
}

namespace {

struct Choice {
  PriorityFactors factors;
  size_t index = SIZE_MAX;  // the best family's (share, family) pair when within quota
  int64_t amount = 0;
};

int64_t ahead_at(const QuotaAhead& ahead, size_t index, size_t expected_size) {
  return ahead.size() == expected_size ? ahead[index] : 0;
}

// A request of `job` that its share's quota ranks: the share has a Share= line in the family and
// the request fits the family's capacity (the others are skipped). Its (share, family) pair's
// index into the ranks.
struct QuotaSlot {
  const QuotaRule* rule = nullptr;
  int64_t amount = 0;
  size_t index = 0;
};

std::optional<QuotaSlot> quota_slot(const ShareRanks& ranks, const Ledger& ledger,
                                    const PendingJob& job, const FamilyRequest& request) {
  const QuotaRule* rule = ledger.policy().rule(job.share, request.family);
  const int64_t amount = std::max<int64_t>(request.amount, 0);
  if (rule == nullptr || amount > ledger.capacity(request.family)) return std::nullopt;
  const size_t index = job.share * ranks.family_count + request.family;
  if (index >= ranks.within.size()) return std::nullopt;
  return QuotaSlot{rule, amount, index};
}

// Per request of a job, the least size class it borrows with under BorrowOrder=largest
// (lifted_classes below); empty: none.
using SizeFloors = std::vector<uint32_t>;

Choice choose(const ShareRanks& ranks, const Ledger& ledger, const PendingJob& job,
              const QuotaAhead& ahead, const SizeFloors& floors = {}) {
  Standing best;
  Choice choice;
  std::vector<std::pair<FamilyId, Standing>> standings;
  for (size_t r = 0; r < job.requests.size(); ++r) {
    const FamilyRequest& request = job.requests[r];
    const auto slot = quota_slot(ranks, ledger, job, request);
    if (!slot) continue;
    const int64_t taken = math::add(ledger.usage(job.share, request.family),
                                    ahead_at(ahead, slot->index, ranks.within.size()));
    Standing here;
    here.within = math::add(taken, slot->amount) <= slot->rule->quota;
    here.rank = here.within ? ranks.within[slot->index] : ranks.borrow[slot->index];
    const Policy& policy = ledger.policy();
    if (!here.within && policy.borrow_largest_first && !policy.is_unlisted(job.share)) {
      here.size = std::max(size_class(slot->amount), r < floors.size() ? floors[r] : 0);
    }
    if (job.requests.size() > 1) standings.emplace_back(request.family, here);
    if (here > best) {
      best = here;
      choice.index = here.within ? slot->index : SIZE_MAX;
      choice.amount = slot->amount;
    }
  }
  choice.factors = pack(best, job.priority, job.nice);
  for (const auto& [family, standing] : standings) {
    choice.factors.in_family.emplace_back(family, pack(standing, job.priority, job.nice).priority);
  }
  return choice;
}

// `job` borrows in every family it asks for: no job of its share behind it is within quota in
// those families (their `taken` becomes the quota), so a smaller job never passes it into the first
// tier. A request larger than the share's whole quota closes nothing: it always borrows.
void close_quota(const ShareRanks& ranks, const Ledger& ledger, const PendingJob& job,
                 QuotaAhead& taken) {
  for (const FamilyRequest& request : job.requests) {
    const auto slot = quota_slot(ranks, ledger, job, request);
    if (slot && slot->amount <= slot->rule->quota) {
      taken[slot->index] = std::max(taken[slot->index], slot->rule->quota);
    }
  }
}

// A share's own order: higher --share-priority, then lower nice level, then older, then lower
// job id.
bool ahead_in_share(const PendingJob& a, const PendingJob& b) {
  if (a.share != b.share) return a.share < b.share;
  if (a.priority != b.priority) return a.priority > b.priority;
  const uint32_t a_level = nice_level(a.nice);
  const uint32_t b_level = nice_level(b.nice);
  if (a_level != b_level) return a_level > b_level;
  if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
  return a.id < b.id;
}

// Same share, --share-priority and nice level: the share's order leaves them to size and age.
bool same_standing_in_share(const PendingJob& a, const PendingJob& b) {
  return a.share == b.share && a.priority == b.priority && nice_level(a.nice) == nice_level(b.nice);
}

// BorrowOrder=largest keeps a share's own order (criteria 3 and 4): a job borrows with at least
// the size class of every eligible job of its share in the same family that the share puts behind
// it by --share-priority or nice, so a share's small job of high priority is not passed by its own
// larger job of low priority; jobs of equal priority and nice go by size. Per job (indices as
// `pending`), per request; `order` is the share's own order (ahead_in_share).
std::vector<SizeFloors> lifted_classes(const ShareRanks& ranks, const Ledger& ledger,
                                       std::span<const PendingJob> pending,
                                       const std::vector<size_t>& order) {
  std::vector<SizeFloors> floors(pending.size());
  // Per (share, family) pair: the largest class behind the standing at hand. Only the pair's own
  // share's jobs touch it, and they come together in `order`.
  std::vector<uint32_t> behind(ranks.within.size(), 0);
  size_t end = order.size();
  while (end > 0) {
    size_t begin = end - 1;  // [begin, end): one standing, walked from the share's last
    while (begin > 0 &&
           same_standing_in_share(pending[order[begin - 1]], pending[order[end - 1]])) {
      --begin;
    }
    for (size_t k = begin; k < end; ++k) {
      const PendingJob& job = pending[order[k]];
      for (const FamilyRequest& request : job.requests) {
        const auto slot = quota_slot(ranks, ledger, job, request);
        floors[order[k]].push_back(slot ? behind[slot->index] : 0);
      }
    }
    for (size_t k = begin; k < end; ++k) {
      const PendingJob& job = pending[order[k]];
      if (!job.eligible) continue;
      for (const FamilyRequest& request : job.requests) {
        const auto slot = quota_slot(ranks, ledger, job, request);
        if (slot) behind[slot->index] = std::max(behind[slot->index], size_class(slot->amount));
      }
    }
    end = begin;
  }
  return floors;
}

}  // namespace

PriorityFactors prioritize(const ShareRanks& ranks, const Ledger& ledger, const PendingJob& job,
                           const QuotaAhead& ahead) {
  return choose(ranks, ledger, job, ahead).factors;
}

RankedQueue prioritize_queue(const ShareRanks& ranks, const Ledger& ledger,
                             std::span<const PendingJob> pending) {
  std::vector<size_t> order(pending.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ahead_in_share(pending[a], pending[b]) ||
           (!ahead_in_share(pending[b], pending[a]) && a < b);
  });
  // Only BorrowOrder=largest lifts size classes; otherwise nothing is allocated per job.
  const std::vector<SizeFloors> floors = ledger.policy().borrow_largest_first
                                             ? lifted_classes(ranks, ledger, pending, order)
                                             : std::vector<SizeFloors>{};
  const SizeFloors none;
  RankedQueue out;
  out.factors.resize(pending.size());
  out.taken.assign(ranks.within.size(), 0);
  for (const size_t i : order) {
    const Choice choice =
        choose(ranks, ledger, pending[i], out.taken, floors.empty() ? none : floors[i]);
    out.factors[i] = choice.factors;
    if (!pending[i].eligible) continue;
    if (choice.index != SIZE_MAX) {
      out.taken[choice.index] = math::add(out.taken[choice.index], choice.amount);
    } else {
      close_quota(ranks, ledger, pending[i], out.taken);
    }
  }
  return out;
}

std::vector<PriorityFactors> prioritize(const Ledger& ledger, const DecayedUsage& usage,
                                        std::span<const PendingJob> pending) {
  return prioritize_queue(rank_shares(ledger, usage), ledger, pending).factors;
}

PriorityFactors prioritize_one(const Ledger& ledger, const DecayedUsage& usage,
                               const PendingJob& job) {
  return prioritize(rank_shares(ledger, usage), ledger, job);
}

uint32_t partition_priority(const Policy& policy, std::string_view partition,
                            const PendingJob& pending, const PriorityFactors& factors,
                            uint32_t priority) {
  const auto family = policy.family_of_partition(partition);
  if (!family) return priority;
  const auto found = std::find_if(factors.in_family.begin(), factors.in_family.end(),
                                  [&](const auto& f) { return f.first == *family; });
  const bool later = std::any_of(pending.later.begin(), pending.later.end(),
                                 [&](const LaterRequest& r) { return r.family == *family; });
  if (!later && found != factors.in_family.end()) return std::max<uint32_t>(found->second, 1);
  if (later || !factors.in_family.empty()) return 1;  // it cannot run there now
  return priority;
}

}  // namespace shareq::policy
