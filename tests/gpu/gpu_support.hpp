// tests/gpu/gpu_support.hpp — shared helpers of the GPU suite: RAII owners for device, pinned and
// pitched memory and streams, fixed-seed random data, polling for asynchronous destructors, the
// message of a refusal, kernel launches from host-compiled code, and a device health check. Host
// code only (test cases are .cpp files; the kernels are in kernels.cu, device helpers in
// device_helpers.cuh).
//
// Random data are multiples of 1/8 in [-64, 64): sums and small products of them are exact in
// float, so results can be compared with ==, and a value is never all-zero bits by accident.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "catch.hpp"
#include "kernels.hpp"
#include <graphdsl/graphdsl.hpp>
#include <graphdsl/format.hpp>

namespace gd = graphdsl;

/// REQUIRE that a raw CUDA call returned cudaSuccess, printing the error name when not.
#define GPU_REQUIRE(call)                                                                           \
  do {                                                                                              \
    const cudaError_t gpu_require_rc_ = (call);                                                     \
    INFO(#call << " -> " << cudaGetErrorName(gpu_require_rc_) << " (" << cudaGetErrorString(gpu_require_rc_) \
               << ")");                                                                             \
    REQUIRE(gpu_require_rc_ == cudaSuccess);                                                        \
  } while (0)

namespace gpu_test {

// ---- random data ---------------------------------------------------------------------------------

/// The one generator seed of the suite (each test makes its own generator from it plus a salt).
inline std::mt19937 rng(unsigned salt = 0) { return std::mt19937(20240611u + salt); }

/// Multiples of 1/8 in [-64, 64), never exactly zero.
inline std::vector<float> random_floats(std::size_t n, std::mt19937& gen) {
  std::uniform_int_distribution<int> d(-512, 511);
  std::vector<float> v(n);
  for (auto& x : v) {
    int k = d(gen);
    if (k == 0) k = 1;
    x = static_cast<float>(k) / 8.0f;
  }
  return v;
}

/// Random integers of type T over its whole range (bytes, shorts, ints).
template <class T>
std::vector<T> random_ints(std::size_t n, std::mt19937& gen) {
  using W = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
  std::uniform_int_distribution<W> d(static_cast<W>(std::numeric_limits<T>::min()),
                                     static_cast<W>(std::numeric_limits<T>::max()));
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(gen));
  return v;
}

/// A random value of T that differs from every element of `avoid` (so a memset is visible).
template <class T>
T random_value_not_in(const std::vector<T>& avoid, std::mt19937& gen) {
  for (;;) {
    T v = random_ints<T>(1, gen)[0];
    if (std::find(avoid.begin(), avoid.end(), v) == avoid.end()) return v;
  }
}

/// REQUIREs got == want element by element, reporting the first mismatch only.
template <class T>
void require_equal(const std::vector<T>& got, const std::vector<T>& want, const char* what = "") {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      std::ostringstream os;
      os << what << ": first mismatch at element " << i << " of " << got.size() << ": got " << +got[i] << ", want "
         << +want[i];
      FAIL(os.str());
    }
  }
  SUCCEED(what);
}

// ---- memory owners -------------------------------------------------------------------------------

/// cudaMalloc'd array of n T (never managed memory).
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) { GPU_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p_), bytes())); }
  /// Allocates and uploads `init`.
  explicit DeviceBuffer(const std::vector<T>& init) : DeviceBuffer(init.size()) { upload(init); }
  ~DeviceBuffer() {
    if (p_) (void)cudaFree(p_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }

  /// Synchronous upload (cudaMemcpy on the legacy stream, then a wait for it). cudaMemcpy from
  /// pageable memory returns once the data is staged, with the DMA to the device possibly still in
  /// flight; work on a non-blocking stream (the suites' Stream) does not wait for the legacy stream,
  /// so without the wait it could read the buffer before the upload lands (seen under ctest -j16).
  void upload(const std::vector<T>& v) {
    REQUIRE(v.size() == n_);
    GPU_REQUIRE(cudaMemcpy(p_, v.data(), bytes(), cudaMemcpyHostToDevice));
    GPU_REQUIRE(cudaStreamSynchronize(cudaStreamLegacy));
  }
  /// Synchronous download.
  std::vector<T> download() const {
    std::vector<T> v(n_);
    GPU_REQUIRE(cudaMemcpy(v.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// cudaMallocHost'd (pinned) array of n T.
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t n) : n_(n) { GPU_REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T))); }
  ~PinnedBuffer() {
    if (p_) (void)cudaFreeHost(p_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  T& operator[](std::size_t i) const noexcept { return p_[i]; }
  void assign(const std::vector<T>& v) {
    REQUIRE(v.size() == n_);
    std::copy(v.begin(), v.end(), p_);
  }
  std::vector<T> to_vector() const { return std::vector<T>(p_, p_ + n_); }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// cudaMallocPitch'd 2-D array: `height` rows of `width_bytes`, rows pitch() bytes apart.
class PitchedBuffer {
 public:
  PitchedBuffer(std::size_t width_bytes, std::size_t height) : width_(width_bytes), height_(height) {
    GPU_REQUIRE(cudaMallocPitch(&p_, &pitch_, width_bytes, height));
  }
  ~PitchedBuffer() {
    if (p_) (void)cudaFree(p_);
  }
  PitchedBuffer(const PitchedBuffer&) = delete;
  PitchedBuffer& operator=(const PitchedBuffer&) = delete;

  void* get() const noexcept { return p_; }
  std::size_t pitch() const noexcept { return pitch_; }
  std::size_t height() const noexcept { return height_; }
  std::size_t width_bytes() const noexcept { return width_; }
  /// Every byte of the allocation, padding included (pitch * height).
  std::size_t total_bytes() const noexcept { return pitch_ * height_; }

 private:
  void* p_ = nullptr;
  std::size_t pitch_ = 0;
  std::size_t width_;
  std::size_t height_;
};

/// cudaMalloc3D'd pitched 3-D array.
class Pitched3DBuffer {
 public:
  explicit Pitched3DBuffer(cudaExtent extent) : extent_(extent) { GPU_REQUIRE(cudaMalloc3D(&p_, extent)); }
  ~Pitched3DBuffer() {
    if (p_.ptr) (void)cudaFree(p_.ptr);
  }
  Pitched3DBuffer(const Pitched3DBuffer&) = delete;
  Pitched3DBuffer& operator=(const Pitched3DBuffer&) = delete;

  const cudaPitchedPtr& ptr() const noexcept { return p_; }
  cudaExtent extent() const noexcept { return extent_; }

 private:
  cudaPitchedPtr p_{};
  cudaExtent extent_;
};

/// A stream created with cudaStreamCreateWithFlags (cudaStreamNonBlocking by default).
class Stream {
 public:
  explicit Stream(unsigned int flags = cudaStreamNonBlocking) { GPU_REQUIRE(cudaStreamCreateWithFlags(&s_, flags)); }
  ~Stream() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const noexcept { return s_; }
  operator cudaStream_t() const noexcept { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// ---- asynchronous destruction ------------------------------------------------------------------

/// Polls `pred` (after cudaDeviceSynchronize) every few milliseconds for up to `timeout`; CUDA user
/// objects are destroyed asynchronously, on a driver thread, after the work that uses them.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(2000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    (void)cudaDeviceSynchronize();
    if (pred()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

inline bool same_counts(const gd::debug::LiveCounts& a, const gd::debug::LiveCounts& b) {
  return a.plans == b.plans && a.native_graphs == b.native_graphs && a.executables == b.executables &&
         a.events == b.events && a.host_closures == b.host_closures;
}

inline std::string describe(const gd::debug::LiveCounts& c) {
  return "plans=" + std::to_string(c.plans) + " native_graphs=" + std::to_string(c.native_graphs) +
         " executables=" + std::to_string(c.executables) + " events=" + std::to_string(c.events) +
         " host_closures=" + std::to_string(c.host_closures);
}

/// The live counters at the start of a test, once objects of earlier tests that CUDA releases
/// asynchronously (user objects holding closures and events) are gone: every test leaves nothing
/// alive, so this waits (up to ~2 s) for all-zero counters; if they never get there, an earlier test
/// leaked, which is reported as a warning and the counters as they are are returned.
inline gd::debug::LiveCounts settled_baseline() {
  const gd::debug::LiveCounts zero{};
  if (!eventually([&] { return same_counts(gd::debug::live_counts(), zero); })) {
    WARN("live counters did not return to zero before this test (an earlier test leaked?): "
         << describe(gd::debug::live_counts()));
  }
  return gd::debug::live_counts();
}

/// REQUIREs that the live counters return to `baseline` (polling: closures and events held by CUDA
/// user objects are released asynchronously).
inline void require_counts_back_to(const gd::debug::LiveCounts& baseline) {
  const bool back = eventually([&] { return same_counts(gd::debug::live_counts(), baseline); });
  INFO("baseline: " << describe(baseline));
  INFO("now:      " << describe(gd::debug::live_counts()));
  REQUIRE(back);
}

// ---- refusals -----------------------------------------------------------------------------------

/// The what() of the graphdsl::UsageError that `f()` throws, or "<no exception>" when it returns
/// (any other exception passes through): for CHECKs of a refusal's exact message.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const gd::UsageError& e) {
    return e.what();
  }
  return "<no exception>";
}

// ---- launching a kernel from host-compiled test code ------------------------------------------

/// What `kernel<<<grid, block, smem, stream>>>(args...)` does, for test cases compiled by the host
/// compiler: the arguments are converted to the kernel's parameter types and launched with
/// cudaLaunchKernel, which (like <<<...>>>) reports a failure through cudaGetLastError.
template <class... P, class... A>
void launch_kernel(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch_kernel: one argument per kernel parameter");
  std::tuple<P...> params(std::forward<A>(args)...);
  std::apply(
      [&](auto&... p) {
        void* pointers[] = {static_cast<void*>(&p)..., nullptr};
        (void)cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, pointers, smem, stream);
      },
      params);
}

/// After a translated CUDA failure: the context still works. cudaMalloc, a kernel launch and a
/// copy back all succeed and the kernel's effect (on random data) is visible. Defined in
/// gpu_support.cpp.
void require_device_healthy();

}  // namespace gpu_test
