// src/event.cpp — the shared event owner and the device memory behind DeviceValue.
#include "counters.hpp"
#include "cuda_call.hpp"
#include "graphdsl/event.hpp"
#include "graphdsl/device_value.hpp"
#include "native.hpp"
#include "reaper.hpp"

namespace graphdsl {

namespace detail {
EventState::EventState(cudaEvent_t h) noexcept : handle(h) { counters().events.fetch_add(1); }
namespace {
void destroy_event_now(cudaEvent_t e) noexcept {
  if (cuda_try(cudaEventDestroy, e) != cudaErrorNotPermitted) counters().events.fetch_sub(1);
}
}  // namespace

EventState::~EventState() {
  // The last Event dropped on a CUDA callback thread: cudaEventDestroy would be refused there.
  if (on_callback_thread() || cuda_try(cudaEventDestroy, handle) == cudaErrorNotPermitted) {
    destroy_later(handle, &destroy_event_now);
    return;
  }
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

namespace graphdsl::detail {

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  GRAPHDSL_CHECK(cudaMalloc, &p, bytes);
  return p;
}

void device_free(void* p) noexcept {
  if (p != nullptr) (void)cuda_try(cudaFree, p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  GRAPHDSL_CHECK(cudaMemcpyAsync, dst, src, bytes, cudaMemcpyHostToDevice, stream);
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  GRAPHDSL_CHECK(cudaMemcpyAsync, dst, src, bytes, cudaMemcpyDeviceToHost, stream);
  GRAPHDSL_CHECK(cudaStreamSynchronize, stream);
}

}  // namespace graphdsl::detail
