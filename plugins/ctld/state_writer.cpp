#include "state_writer.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "log.hpp"

namespace shareq::ctld {
namespace {

struct Pending {
  std::string text;
  Durability durability = Durability::MachineCrash;
  const char* what = "";
};

class StateWriter {
 public:
  ~StateWriter() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void queue(const std::string& path, Pending pending) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      queued_[path] = std::move(pending);
      if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    wake_.notify_all();
  }

  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return queued_.empty() && !writing_; });
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
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

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::map<std::string, Pending> queued_;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

StateWriter& writer() {
  static StateWriter w;  // joined (after writing what is queued) when the library unloads
  return w;
}

}  // namespace

void save_state_later(const std::string& path, std::string text, Durability durability,
                      const char* what) {
  writer().queue(path, Pending{std::move(text), durability, what});
}

void flush_state_saves() { writer().flush(); }

}  // namespace shareq::ctld
