// graphdsl/device_value.hpp — a small device-resident value with a fixed address.
//
//   gd::DeviceValue<float> alpha(2.0f);                        // cudaMalloc'd once
//   g.add_kernel(axpy, launch, alpha.get(), d_x, d_y, n);      // the graph bakes in the address
//   exec.launch(s);
//   alpha.set(3.0f, s);                                         // stream-ordered: the next launch sees 3
//   exec.launch(s);
//
// The usual way to change a scalar input between launches without any update: the kernel reads
// the value through a pointer whose address never changes. The value can also be written by a
// memcpy node of the graph (g.add_memcpy(v.get(), &host_value, 1)).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

namespace graphdsl {

namespace detail {
/// cudaMalloc through the checked path. @throws CudaError.
void* device_alloc(std::size_t bytes);
/// cudaFree through the checked path; errors are ignored (used by destructors).
void device_free(void* p) noexcept;
/// cudaMemcpyAsync host -> device on `stream`. The host bytes are staged before it returns, so
/// `src` may be a temporary. @throws CudaError.
void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
/// cudaMemcpyAsync device -> host on `stream`, then cudaStreamSynchronize(stream). @throws CudaError.
void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);
}  // namespace detail

/// One value of type T in device memory, owned (cudaFree on destruction). Move-only; a moved-from
/// DeviceValue holds no memory (get() returns nullptr).
/// Thread-safety: like a pointer; set() calls on different streams are not ordered with each other.
/// Exception-safety: a constructor that throws frees what it allocated; moves and destruction never
/// throw (cudaFree errors are ignored); set() and read() throw CudaError and leave the object usable.
template <class T>
class DeviceValue {
  static_assert(std::is_trivially_copyable_v<T>, "graphdsl DeviceValue: T must be trivially copyable");

 public:
  /// Allocates the value and writes `initial` on `stream` (stream-ordered).
  /// @throws CudaError if the allocation or the copy fails.
  explicit DeviceValue(const T& initial = T{}, cudaStream_t stream = nullptr)
      : p_(static_cast<T*>(detail::device_alloc(sizeof(T)))) {
    try {
      set(initial, stream);
    } catch (...) {
      detail::device_free(p_);
      throw;
    }
  }
  /// Takes over `o`'s memory (same device address); `o` is left holding none.
  DeviceValue(DeviceValue&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  /// Frees this value's memory (cudaFree; errors are ignored) and takes over `o`'s; `o` is left
  /// holding none.
  DeviceValue& operator=(DeviceValue&& o) noexcept {
    if (this != &o) {
      detail::device_free(p_);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  DeviceValue(const DeviceValue&) = delete;
  DeviceValue& operator=(const DeviceValue&) = delete;
  /// Frees the memory (cudaFree; errors are ignored). Never throws.
  ~DeviceValue() { detail::device_free(p_); }

  /// The device address; fixed for the lifetime of the object (graphs may bake it in).
  T* get() const noexcept { return p_; }
  /// Writes `value` in stream order on `stream` (launches queued before it read the old value).
  void set(const T& value, cudaStream_t stream = nullptr) { detail::copy_to_device(p_, &value, sizeof(T), stream); }
  /// Reads the value after the work queued on `stream` (synchronizes `stream`).
  T read(cudaStream_t stream = nullptr) const {
    T value;
    detail::copy_to_host(&value, p_, sizeof(T), stream);
    return value;
  }

 private:
  T* p_;
};

}  // namespace graphdsl
