// src/native/event_state.hpp — the state behind graphdsl::Event: the shared, lazily created
// cudaEvent_t (defined in event.cpp).
#pragma once

#include <atomic>
#include <mutex>

#include <cuda_runtime_api.h>

namespace graphdsl::detail {

/// The state an Event's copies share: the flags, and the cudaEvent_t once created (lazily, on
/// first native use: Event::native_handle). Counted in live_counts().events while the event exists.
struct EventState {
  explicit EventState(unsigned int event_flags) noexcept : flags(event_flags) {}
  /// The state of a borrowed event (Event::borrow): created by its owner, never destroyed here.
  explicit EventState(cudaEvent_t borrowed) noexcept : flags(0), owned(false), handle(borrowed) {}
  ~EventState();
  EventState(const EventState&) = delete;
  EventState& operator=(const EventState&) = delete;
  /// The cudaEvent_t, created on the first call. @throws CudaError when it cannot be created.
  cudaEvent_t get();
  /// get() for callers that name the node themselves: the cudaEvent_t in `out`, or the error of
  /// cudaEventCreateWithFlags (sticky error cleared) with `out` null.
  cudaError_t try_get(cudaEvent_t& out) noexcept;

  const unsigned int flags;
  const bool owned = true;  ///< false for a borrowed event, whose owner destroys it
  std::atomic<cudaEvent_t> handle{nullptr};
  std::mutex create_mutex;
  std::atomic<long> refs{1};  ///< SharedRef owners (Event copies, plans, executables' keep-alive boxes)
};

}  // namespace graphdsl::detail
