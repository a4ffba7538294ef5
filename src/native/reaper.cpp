// src/native/reaper.cpp — the release thread behind release_later().
#include "native/reaper.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace graphdsl::detail {

namespace {

std::atomic<bool> reaper_gone{false};  // set at exit: late releases then happen in place
thread_local bool callback_thread = false;

class Reaper {
 public:
  Reaper() : thread_([this] { run(); }) {}
  ~Reaper() {
    reaper_gone.store(true);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }

  void push(std::shared_ptr<const void> keep) noexcept {
    try {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(keep));
      }
      ready_.notify_one();
    } catch (...) {
      // Out of memory while queueing: release here rather than leak (the object's destructor may
      // then fail to call CUDA, which it tolerates).
    }
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      std::deque<std::shared_ptr<const void>> batch;
      batch.swap(queue_);
      lock.unlock();
      batch.clear();  // the destructors run here, on this thread
      lock.lock();
      if (stop_ && queue_.empty()) return;
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<const void>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace

OnCallbackThread::OnCallbackThread() noexcept : previous_(std::exchange(callback_thread, true)) {}
OnCallbackThread::~OnCallbackThread() { callback_thread = previous_; }
bool on_callback_thread() noexcept { return callback_thread; }

void release_later(std::shared_ptr<const void> keep) noexcept {
  if (reaper_gone.load()) return;  // process exit: `keep` is dropped here
  static Reaper reaper;
  reaper.push(std::move(keep));
}

}  // namespace graphdsl::detail
