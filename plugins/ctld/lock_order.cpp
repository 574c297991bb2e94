#include "lock_order.hpp"

#include <cstdio>
#include <cstdlib>

#include <atomic>

namespace shareq::ctld {
namespace {

// Bit r: this thread holds a lock of rank r (ranks are below 32).
thread_local uint32_t t_held = 0;

uint32_t bit(LockRank rank) { return uint32_t{1} << static_cast<unsigned>(rank); }

// The latest rank this thread holds, if any.
int latest_held() { return t_held == 0 ? -1 : 31 - __builtin_clz(t_held); }

std::atomic<LockOrderReporter> g_reporter{nullptr};

[[noreturn]] void violated(const char* what, LockRank held) {
  char line[256];
  std::snprintf(line, sizeof line,
                "lock order violated: %s while holding %s (plugins/ctld/lock_order.hpp); aborting",
                what, lock_rank_name(held));
  if (const LockOrderReporter report = g_reporter.load()) report(line);
  std::fprintf(stderr, "shareq: %s\n", line);
  std::abort();
}

}  // namespace

const char* lock_rank_name(LockRank rank) {
  switch (rank) {
    case LockRank::PreemptorCache:
      return "PreemptorCache";
    case LockRank::VictimOrder:
      return "VictimOrder";
    case LockRank::WarmPools:
      return "WarmPools";
    case LockRank::Claims:
      return "Claims";
    case LockRank::Jobs:
      return "Jobs";
    case LockRank::RecalcSignal:
      return "RecalcSignal";
    case LockRank::Ranks:
      return "Ranks";
    case LockRank::QuotaTaken:
      return "QuotaTaken";
    case LockRank::PendingPriorities:
      return "PendingPriorities";
    case LockRank::RecentEnds:
      return "RecentEnds";
    case LockRank::FailedRuns:
      return "FailedRuns";
    case LockRank::DigestBook:
      return "DigestBook";
    case LockRank::Usage:
      return "Usage";
    case LockRank::ConfigCheck:
      return "ConfigCheck";
    case LockRank::Config:
      return "Config";
    case LockRank::StateWriter:
      return "StateWriter";
    case LockRank::WaitReasons:
      return "WaitReasons";
  }
  return "?";
}

void lock_order_acquired(LockRank rank) {
  const int held = latest_held();
  if (held >= static_cast<int>(rank)) {
    char what[64];
    std::snprintf(what, sizeof what, "taking %s", lock_rank_name(rank));
    violated(what, static_cast<LockRank>(held));
  }
  t_held |= bit(rank);
}

void set_lock_order_reporter(LockOrderReporter reporter) { g_reporter.store(reporter); }

void lock_order_released(LockRank rank) { t_held &= ~bit(rank); }

void assert_no_shareq_lock(const char* where) {
  if (!kCheckLockOrder || t_held == 0) return;
  violated(where, static_cast<LockRank>(latest_held()));
}

}  // namespace shareq::ctld
