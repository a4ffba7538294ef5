// src/native/reaper.hpp — releases objects off CUDA's callback threads.
//
// CUDA runs a user object's destructor on one of its own threads, where CUDA API calls are not
// permitted (cudaEventDestroy there returns cudaErrorNotPermitted and the event leaks). Keep-alives
// released by CUDA are therefore handed to one graphdsl thread, which drops them.
#pragma once

#include <memory>

namespace graphdsl::detail {

/// Drops `keep` on graphdsl's release thread (started on first use, joined at exit).
void release_later(std::shared_ptr<const void> keep) noexcept;

/// While alive, marks this thread as one of CUDA's callback threads (a host node running, a user
/// object's destructor), where CUDA calls are refused (cudaErrorNotPermitted).
class OnCallbackThread {
 public:
  OnCallbackThread() noexcept;
  ~OnCallbackThread();
  OnCallbackThread(const OnCallbackThread&) = delete;
  OnCallbackThread& operator=(const OnCallbackThread&) = delete;

 private:
  bool previous_;
};

/// True on a thread marked by OnCallbackThread.
bool on_callback_thread() noexcept;

/// Calls `destroy(handle)` on the release thread: for native handles released on a callback thread
/// (an Executable destroyed inside its own host callback), whose destroy call would be refused
/// there and leak the object and its device memory. If queueing fails (out of memory) the handle leaks.
template <class H>
void destroy_later(H handle, void (*destroy)(H)) noexcept {
  try {
    release_later(std::shared_ptr<const void>(static_cast<const void*>(handle), [destroy](const void* h) {
      destroy(static_cast<H>(const_cast<void*>(h)));
    }));
  } catch (...) {
  }
}

}  // namespace graphdsl::detail
