// graphdsl/event.hpp — a shared, owning CUDA event handle for event record/wait nodes.
//
// An Event is a reference-counted owner of one cudaEvent_t. Plans and executables that use it keep
// a reference, so dropping your own Event while a graph that records or waits on it can still
// launch is safe (the raw driver crashes the process in that case).
//
// Event::create() makes no CUDA call: the cudaEvent_t is created on first native use (when the
// first plan holding the Event is compiled or updated, or native_handle() is called), on the device
// current at that moment. So a plan with event nodes can be built, validated, dumped and diffed on
// a machine without a GPU, like any other plan.
#pragma once

#include <cuda_runtime_api.h>

#include "graphdsl/detail/shared_ref.hpp"

namespace graphdsl {

namespace detail {
struct EventState;
}

/// Shared owner of a cudaEvent_t. Copies share the same event; the last owner destroys it.
/// Thread-safety: like std::shared_ptr (distinct Event objects may be used from different threads);
/// the first native_handle() calls on copies of one Event may race: exactly one creates the event.
/// Exception-safety: copies, moves and destruction never throw; create() throws only std::bad_alloc;
/// native_handle() throws CudaError when the event cannot be created.
class Event {
 public:
  /// An empty Event; adding it to a plan is a UsageError reported by Graph::validate().
  Event() noexcept = default;

  /// A new event, created with cudaEventCreateWithFlags(flags) on first native use (no CUDA call
  /// here: plans holding it validate, dump and diff without a GPU).
  /// @param flags cudaEventDefault, cudaEventDisableTiming (the default), cudaEventBlockingSync, ...
  static Event create(unsigned int flags = cudaEventDisableTiming);

  /// An Event around `event`, an event you created and destroy yourself: graphdsl never destroys
  /// it, so it must outlive every plan and executable that uses it (graphdsl::adopt gives the events
  /// of an adopted graph this way). Copies of one borrowed Event compare as one event; two borrow()
  /// calls on one cudaEvent_t make two Events of the same handle, which diff() and update() take as
  /// one event. A null `event` makes an empty Event.
  static Event borrow(cudaEvent_t event);

  /// The native handle, or nullptr for an empty Event. The first call on any copy creates the
  /// cudaEvent_t on the current device (compiling a plan that uses the Event does the same). The
  /// handle stays valid while any copy of this Event, or any plan or executable using it, is alive.
  /// @throws CudaError if the event cannot be created (for example, no CUDA device).
  cudaEvent_t native_handle() const;

  /// True once the cudaEvent_t exists (native_handle() was called or a plan using it was compiled).
  bool created() const noexcept;

  /// True unless the Event is empty (default-constructed or moved-from).
  explicit operator bool() const noexcept { return static_cast<bool>(state_); }

  /// The number of Event copies, plans and executables sharing this event (for tests and diagnostics).
  long use_count() const noexcept { return state_.use_count(); }

  /// The shared state, for graphdsl's own bookkeeping.
  const detail::SharedRef<detail::EventState>& state() const noexcept { return state_; }

 private:
  detail::SharedRef<detail::EventState> state_;
};

}  // namespace graphdsl
