// src/native/event.cpp — the shared event owner and the device memory behind DeviceValue.
#include "graphdsl/device_value.hpp"
#include "graphdsl/event.hpp"
#include "native/cuda_call.hpp"
#include "native/event_state.hpp"
#include "native/reaper.hpp"
#include "plan/counters.hpp"

namespace graphdsl {

namespace detail {
namespace {
void destroy_event_now(cudaEvent_t e) noexcept {
  if (cuda_try(cudaEventDestroy, e) != cudaErrorNotPermitted) counters().events.fetch_sub(1);
}
}  // namespace

EventState::~EventState() {
  cudaEvent_t e = handle.load();
  if (e == nullptr || !owned) return;  // never used natively (nothing was created), or borrowed
  // The last Event dropped on a CUDA callback thread: cudaEventDestroy would be refused there.
  if (on_callback_thread() || cuda_try(cudaEventDestroy, e) == cudaErrorNotPermitted) {
    destroy_later(e, &destroy_event_now);
    return;
  }
  counters().events.fetch_sub(1);
}

cudaError_t EventState::try_get(cudaEvent_t& out) noexcept {
  out = handle.load(std::memory_order_acquire);
  if (out != nullptr) return cudaSuccess;
  const std::lock_guard<std::mutex> lock(create_mutex);
  out = handle.load(std::memory_order_relaxed);
  if (out != nullptr) return cudaSuccess;
  const cudaError_t rc = cuda_try(cudaEventCreateWithFlags, &out, flags);
  if (rc != cudaSuccess) {
    out = nullptr;
    return rc;
  }
  counters().events.fetch_add(1);
  handle.store(out, std::memory_order_release);
  return cudaSuccess;
}

void retain(EventState* p) noexcept { p->refs.fetch_add(1, std::memory_order_relaxed); }
void release(EventState* p) noexcept {
  if (p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p;
}
long use_count(const EventState* p) noexcept { return p->refs.load(std::memory_order_relaxed); }

cudaEvent_t EventState::get() {
  cudaEvent_t e = nullptr;
  if (const cudaError_t rc = try_get(e); rc != cudaSuccess) throw_cuda(rc, "cudaEventCreateWithFlags");
  return e;
}
}  // namespace detail

Event Event::create(unsigned int flags) {
  Event out;
  out.state_ = detail::SharedRef<detail::EventState>::adopt(new detail::EventState(flags));
  return out;
}

Event Event::borrow(cudaEvent_t event) {
  Event out;
  if (event != nullptr) out.state_ = detail::SharedRef<detail::EventState>::adopt(new detail::EventState(event));
  return out;
}

cudaEvent_t Event::native_handle() const { return state_ ? state_->get() : nullptr; }

bool Event::created() const noexcept { return state_ && state_->handle.load() != nullptr; }

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
