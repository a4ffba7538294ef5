// src/native/reaper.cpp — the release thread behind release_later().
#include "native/reaper.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace graphdsl::detail {

namespace {

std::atomic<bool> reaper_gone{false};  // set at exit: late releases then happen in place
thread_local bool callback_thread = false;
/// What a callback running on this thread released: handed to the release thread when it returns.
thread_local std::vector<std::shared_ptr<const void>> held_by_callback;

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

  /// Queues `keep` and, when given, every element of `more` (which is left empty).
  void push(std::shared_ptr<const void> keep, std::vector<std::shared_ptr<const void>>* more = nullptr) noexcept {
    try {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (keep != nullptr) queue_.push_back(std::move(keep));
        if (more != nullptr) {
          for (auto& k : *more) queue_.push_back(std::move(k));
          more->clear();
        }
      }
      ready_.notify_one();
    } catch (...) {
      // Out of memory while queueing: release here rather than leak (the object's destructor may
      // then fail to call CUDA, which it tolerates).
      if (more != nullptr) more->clear();
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

/// The release thread, started on first use; null at process exit.
Reaper* reaper() noexcept {
  if (reaper_gone.load()) return nullptr;  // process exit: releases happen in place
  static Reaper instance;
  return &instance;
}

}  // namespace

OnCallbackThread::OnCallbackThread() noexcept : previous_(std::exchange(callback_thread, true)) {}

OnCallbackThread::~OnCallbackThread() {
  callback_thread = previous_;
  if (previous_ || held_by_callback.empty()) return;
  // The callback has returned: what it released may go now.
  if (Reaper* r = reaper()) {
    r->push(nullptr, &held_by_callback);
  } else {
    held_by_callback.clear();
  }
}

bool on_callback_thread() noexcept { return callback_thread; }

void release_later(std::shared_ptr<const void> keep) noexcept {
  if (callback_thread) {
    try {
      held_by_callback.push_back(std::move(keep));
      return;
    } catch (...) {
      // Out of memory: queue it at once, as before callbacks held their releases.
    }
  }
  if (Reaper* r = reaper()) r->push(std::move(keep));
}

}  // namespace graphdsl::detail
