// src/native/cuda_call.hpp — the one checked path every CUDA runtime call of graphdsl goes through.
//
//   cuda_try(fn, args...)            counts the call, runs it, clears the sticky last error on failure,
//                                    returns the cudaError_t (for destructors and refusal paths)
//   GRAPHDSL_CHECK(fn, args...)      cuda_try, then throws CudaError naming `fn` on failure
//   throw_cuda(rc, api, node, hint)  builds and throws the CudaError (message built once, on failure)
//   driver_entry(symbol, version)    a driver entry point, for a hot path's first attempt only (below)
//   driver_try(fn, args...)          a driver entry point with no runtime equivalent (batch memory
//                                    operations), its CUresult returned as the same-numbered cudaError_t
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "graphdsl/error.hpp"
#include "plan/counters.hpp"

namespace graphdsl::detail {

/// CUDA calls made through this path by the calling thread (debug::cuda_calls). Per thread, so that
/// counting costs no atomic operation (an uncontended one cost ~10 ns per call on an H200's host)
/// and a test's count is not moved by graphdsl's own background thread.
inline thread_local std::uint64_t cuda_calls_on_thread = 0;
inline void count_cuda_call() noexcept { ++cuda_calls_on_thread; }
void clear_last_error() noexcept;

template <class F, class... A>
cudaError_t cuda_try(F fn, A... args) noexcept {
  count_cuda_call();
  const cudaError_t rc = fn(args...);
  if (rc != cudaSuccess) clear_last_error();
  return rc;
}

[[noreturn]] void throw_cuda(cudaError_t rc, const char* api, std::optional<NodeInfo> node = std::nullopt,
                             std::string detail = {});

/// The driver's `symbol` of ABI `version` (e.g. 12000), fetched through the runtime
/// (cudaGetDriverEntryPointByVersion: no link to libcuda), or null when the driver has none. A hot
/// path (the kernel-node setter and per-node update) may call it directly, counted with
/// count_cuda_call(), as a first attempt only: on any failure it repeats the call through the
/// runtime with cuda_try, so the error reported, its translation and the sticky-error handling stay
/// the runtime's, on this one path.
void* driver_entry(const char* symbol, unsigned version) noexcept;

/// The function handle a driver entry point takes for a kernel: a cache of the last host function
/// looked up (cudaGetFuncBySymbol) and the device it was looked up on (a CUfunction belongs to a
/// context; -1: not keyed by device, the caller forgets the cache when a driver call fails).
struct KernelLookup {
  const void* func = nullptr;
  int device = -1;
  cudaFunction_t function = nullptr;
};
/// The CUfunction of kernel `func` on `device` from `cache`, looked up when the cache holds another;
/// null (and the cache emptied) when the lookup fails. Used by the kernel setter and the node add.
cudaFunction_t cached_function(KernelLookup& cache, const void* func, int device) noexcept;

/// Calls `fn`, a driver entry point from driver_entry() that the runtime API has no equivalent of
/// (cuGraphAddBatchMemOpNode and its kin), counted like cuda_try. The CUresult comes back as the
/// cudaError_t of the same number: the runtime's codes equal the driver's for every code these
/// calls return (CUDA_ERROR_INVALID_VALUE = cudaErrorInvalidValue = 1, ..._NOT_SUPPORTED = 801),
/// so throw_cuda names it as for any runtime call. A null `fn` (a driver without the entry point)
/// is cudaErrorNotSupported.
template <class R, class... P, class... A>
cudaError_t driver_try(R (*fn)(P...), A... args) noexcept {
  if (fn == nullptr) return cudaErrorNotSupported;
  count_cuda_call();
  const auto rc = static_cast<cudaError_t>(fn(args...));
  if (rc != cudaSuccess) clear_last_error();
  return rc;
}

/// The hot-path pattern of driver_entry: `driver` (an entry point, null without one) first, counted;
/// on any failure `runtime` with the same arguments (the runtime's handle types are the driver's),
/// whose error is the one returned.
template <class D, class F, class... A>
cudaError_t driver_first(D* driver, F runtime, A... args) noexcept {
  if (driver != nullptr) {
    count_cuda_call();
    if (static_cast<int>(driver(args...)) == 0) return cudaSuccess;  // CUDA_SUCCESS
  }
  return cuda_try(runtime, args...);
}

template <class F, class... A>
void cuda_check(const char* api, F fn, A... args) {
  const cudaError_t rc = cuda_try(fn, args...);
  if (rc != cudaSuccess) throw_cuda(rc, api);
}

}  // namespace graphdsl::detail

#define GRAPHDSL_CHECK(fn, ...) ::graphdsl::detail::cuda_check(#fn, fn, __VA_ARGS__)
