// src/event.cpp — the shared event owner.
#include "counters.hpp"
#include "cuda_call.hpp"
#include "graphdsl/event.hpp"
#include "native.hpp"

namespace graphdsl {

namespace detail {
EventState::EventState(cudaEvent_t h) noexcept : handle(h) { counters().events.fetch_add(1); }
EventState::~EventState() {
  (void)cuda_try(cudaEventDestroy, handle);
  counters().events.fetch_sub(1);
}
}  // namespace detail

Event Event::create(unsigned int flags) {
  cudaEvent_t e = nullptr;
  GRAPHDSL_CHECK(cudaEventCreateWithFlags, &e, flags);
  Event out;
  out.state_ = std::make_shared<detail::EventState>(e);
  return out;
}

cudaEvent_t Event::native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

}  // namespace graphdsl
