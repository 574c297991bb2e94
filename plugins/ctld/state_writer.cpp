#include "state_writer.hpp"

#include "controller_state.hpp"
#include "log.hpp"

namespace shareq::ctld {

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
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_all();
}

void StateWriter::flush() {
  std::unique_lock<RankedMutex> lock(mutex_);
  idle_.wait(lock, [&] { return queued_.empty() && !writing_; });
}

void StateWriter::run() {
  std::unique_lock<RankedMutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;  // stopping, nothing left
    std::map<std::string, Pending> batch;
    batch.swap(queued_);
    writing_ = true;
    lock.unlock();
    for (const auto& [path, pending] : batch) {
      if (auto why = write_file_atomically(path, pending.text, pending.durability)) {
        log_error("%s: %s", pending.what, why->c_str());
      }
    }
    lock.lock();
    writing_ = false;
    idle_.notify_all();
  }
}

void save_state_later(const std::string& path, std::string text, Durability durability,
                      const char* what) {
  controller_state().writer.queue(path, std::move(text), durability, what);
}

void flush_state_saves() { controller_state().writer.flush(); }

}  // namespace shareq::ctld
