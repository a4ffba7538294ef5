// src/native/reaper.hpp — releases objects off CUDA's callback threads.
//
// CUDA runs a user object's destructor on one of its own threads, where CUDA API calls are not
// permitted (cudaEventDestroy there returns cudaErrorNotPermitted and the event leaks). Keep-alives
// released by CUDA are therefore handed to one graphdsl thread, which drops them.
//
// What a callback releases reaches that thread only when the callback has returned: an executable
// destroyed inside one of its own host nodes must not be destroyed by CUDA while that node still
// runs. Raw CUDA crashed (SIGSEGV) when cudaGraphExecDestroy ran on another thread during the
// executable's own host callback (docs/reliability.md, section 11).
#pragma once

#include <memory>

namespace graphdsl::detail {

/// Drops `keep` on graphdsl's release thread (started on first use, joined at exit). On a thread
/// marked by OnCallbackThread, `keep` is handed over when the outermost mark ends (the callback has
/// returned), not before.
void release_later(std::shared_ptr<const void> keep) noexcept;

/// While alive, marks this thread as one of CUDA's callback threads (a host node running, a user
/// object's destructor), where CUDA calls are refused (cudaErrorNotPermitted). The outermost mark
/// hands what was released under it to the release thread when it ends.
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
