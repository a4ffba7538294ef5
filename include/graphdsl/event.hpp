// graphdsl/event.hpp — a shared, owning CUDA event handle for event record/wait nodes.
//
// An Event is a reference-counted owner of one cudaEvent_t. Plans and executables that use it keep
// a reference, so dropping your own Event while a graph that records or waits on it can still
// launch is safe (the raw driver crashes the process in that case).
#pragma once

#include <memory>

#include <cuda_runtime_api.h>

namespace graphdsl {

namespace detail {
struct EventState;
}

/// Shared owner of a cudaEvent_t. Copies share the same event; the last owner destroys it.
/// Thread-safety: like std::shared_ptr (distinct Event objects may be used from different threads).
/// Exception-safety: copies, moves and destruction never throw; only create() throws.
class Event {
 public:
  /// An empty Event; adding it to a plan is a UsageError reported by Graph::validate().
  Event() noexcept = default;

  /// Creates a new event with cudaEventCreateWithFlags.
  /// @param flags cudaEventDefault, cudaEventDisableTiming (the default), cudaEventBlockingSync, ...
  /// @throws CudaError if the event cannot be created (for example, no CUDA device).
  static Event create(unsigned int flags = cudaEventDisableTiming);

  /// The native handle, or nullptr for an empty Event. The handle stays valid while any copy of
  /// this Event, or any plan or executable using it, is alive.
  cudaEvent_t native_handle() const noexcept;

  /// True unless the Event is empty (default-constructed or moved-from).
  explicit operator bool() const noexcept { return static_cast<bool>(state_); }

  /// The number of Event copies, plans and executables sharing this event (for tests and diagnostics).
  long use_count() const noexcept { return state_.use_count(); }

  /// The shared state, for graphdsl's own bookkeeping.
  const std::shared_ptr<detail::EventState>& state() const noexcept { return state_; }

 private:
  std::shared_ptr<detail::EventState> state_;
};

}  // namespace graphdsl
