#include "state_writer.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace shareq::ctld {

using Clock = std::chrono::steady_clock;

StateWriter::StateWriter(Report report, Retry retry) : report_(std::move(report)), retry_(retry) {}

StateWriter::~StateWriter() {
  {
    const RankedLock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StateWriter::queue(const std::string& path, std::string text, Durability durability,
                        const char* what) {
  {
    const RankedLock lock(mutex_);
    queued_[path] = Pending{std::move(text), durability, what};
    if (!thread_.joinable()) thread_ = std::thread([this] { run_reporting(); });
  }
  wake_.notify_all();
}

void StateWriter::flush() {
  std::unique_lock<RankedMutex> lock(mutex_);
  queue_due_retries(/*all=*/true);
  wake_.notify_all();
  idle_.wait(lock, [&] { return queued_.empty() && !writing_; });
}

void StateWriter::wait_for_work(std::unique_lock<RankedMutex>& lock) {
  const auto ready = [&] { return stopping_ || !queued_.empty(); };
  if (failed_.empty()) {
    wake_.wait(lock, ready);
    return;
  }
  auto first_retry = Clock::time_point::max();
  for (const auto& [path, failed] : failed_) first_retry = std::min(first_retry, failed.retry_at);
  wake_.wait_until(lock, first_retry, ready);
}

void StateWriter::queue_due_retries(bool all) {
  const auto now = Clock::now();
  for (const auto& [path, failed] : failed_) {
    if (all || failed.retry_at <= now) queued_.try_emplace(path, failed.pending);
  }
}

void StateWriter::run_reporting() {
  for (;;) {
    try {
      run();
      return;
    } catch (const std::exception& e) {
      recover(e.what());
    } catch (...) {
      recover("unknown exception");
    }
  }
}

void StateWriter::recover(const char* what) {
  {
    const RankedLock lock(mutex_);
    writing_ = false;
  }
  idle_.notify_all();
  try {
    report_(true, std::string("state writer: ") + what +
                      "; what it was writing is written again at the file's next change");
  } catch (...) {  // nothing left to tell it with
  }
}

void StateWriter::run() {
  std::unique_lock<RankedMutex> lock(mutex_);
  for (;;) {
    wait_for_work(lock);
    const bool last_pass = stopping_;  // one more try for each failed write, then done
    queue_due_retries(last_pass);
    if (queued_.empty()) {
      if (last_pass) return;
      continue;
    }
    std::map<std::string, Pending> batch;
    batch.swap(queued_);
    writing_ = true;
    lock.unlock();
    std::vector<Outcome> outcomes;
    outcomes.reserve(batch.size());
    for (const auto& [path, pending] : batch) {
      outcomes.push_back({path, write_file_atomically(path, pending.text, pending.durability)});
    }
    lock.lock();
    const auto reports = record(outcomes, batch, last_pass);
    lock.unlock();
    for (const auto& [error, message] : reports) report_(error, message);
    lock.lock();
    writing_ = false;
    idle_.notify_all();
    if (last_pass) return;
  }
}

std::vector<std::pair<bool, std::string>> StateWriter::record(const std::vector<Outcome>& outcomes,
                                                              std::map<std::string, Pending>& batch,
                                                              bool last_pass) {
  std::vector<std::pair<bool, std::string>> reports;
  for (const auto& outcome : outcomes) {
    Pending& pending = batch[outcome.path];
    const auto known = failed_.find(outcome.path);
    if (!outcome.why) {
      if (known != failed_.end()) {
        reports.emplace_back(false, std::string(pending.what) + ": " + outcome.path +
                                        " written after " + std::to_string(known->second.failures) +
                                        " failed attempt(s)");
        failed_.erase(known);
      }
      continue;
    }
    Failed& failed = failed_[outcome.path];
    const bool new_reason = failed.failures == 0 || failed.why != *outcome.why;
    failed.failures += 1;
    failed.why = *outcome.why;
    failed.retry_at = Clock::now() + retry_delay(failed.failures);
    failed.pending = std::move(pending);
    if (new_reason || last_pass) {
      reports.emplace_back(
          true, std::string(failed.pending.what) + ": " + failed.why +
                    (last_pass ? "; not written" : "; trying again, at most a minute apart"));
    }
  }
  return reports;
}

std::chrono::milliseconds StateWriter::retry_delay(int failures) const {
  return std::min<std::chrono::milliseconds>(retry_.max,
                                             retry_.first * (1LL << std::min(failures - 1, 20)));
}

}  // namespace shareq::ctld
