// src/plan/thread_scratch.hpp — a vector the calling thread keeps between compiles, so that
// instantiating a small graph does not allocate its scratch lists each time.
#pragma once

#include <cstddef>
#include <vector>

namespace graphdsl::detail {

/// The calling thread's kept vector for one purpose (`Tag`), borrowed for a scope and cleared: no
/// allocation once it has grown. A borrow while the thread's vector is already borrowed further up
/// the stack (a captured function that a compile runs may compile another graph) gets a vector of
/// its own instead. A use that grows the kept vector beyond `kept_limit` elements gives its storage
/// back when it ends, so that no thread keeps a large one.
template <class T, class Tag>
class ThreadScratch {
 public:
  static constexpr std::size_t kept_limit = 4096;

  ThreadScratch() noexcept : kept_(slot()), v_(kept_.in_use ? own_ : kept_.v) {
    if (&v_ == &kept_.v) kept_.in_use = true;
    v_.clear();
  }
  ~ThreadScratch() {
    if (&v_ != &kept_.v) return;
    if (v_.capacity() > kept_limit) std::vector<T>().swap(v_);
    kept_.in_use = false;
  }
  ThreadScratch(const ThreadScratch&) = delete;
  ThreadScratch& operator=(const ThreadScratch&) = delete;

  std::vector<T>& get() noexcept { return v_; }

 private:
  struct Slot {
    std::vector<T> v;
    bool in_use = false;
  };
  static Slot& slot() noexcept {
    thread_local Slot s;
    return s;
  }
  Slot& kept_;
  std::vector<T> own_;
  std::vector<T>& v_;
};

}  // namespace graphdsl::detail
