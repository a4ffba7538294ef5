// src/exec/exec_impl.cpp — deleting an executable's state (detail::ExecImplDelete, declared in
// graphdsl/executable.hpp), safely from a CUDA callback too.
#include <memory>
#include <thread>

#include "graphdsl/executable.hpp"
#include "native/native.hpp"
#include "native/reaper.hpp"

namespace graphdsl::detail {

void ExecImplDelete::destroy(ExecImpl* x) noexcept {
  if (!on_callback_thread()) {
    const RelaxedCaptureCalls relaxed;  // one exchange for the executable's and its graph's destruction
    delete x;
    return;
  }
  // Destroyed inside a CUDA callback, as by a host node deleting its own executable: the thread that
  // launched it may still be inside cudaGraphLaunch of it, and destroying the executable then
  // crashed the driver (SIGSEGV in cuGraphLaunch; docs/reliability.md section 11). The release
  // thread deletes it once the callback has returned and no launch() of it is under way.
  try {
    release_later(std::shared_ptr<const void>(x, [](const void* p) {
      auto* e = static_cast<ExecImpl*>(const_cast<void*>(p));
      while (e->launching.load(std::memory_order_acquire)) std::this_thread::yield();
      const RelaxedCaptureCalls relaxed;
      delete e;
    }));
  } catch (...) {
    // Out of memory for the shared_ptr's control block: it has deleted x in place already.
  }
}

}  // namespace graphdsl::detail
