// src/native/errors.cpp — CudaError and the failure half of the checked CUDA path (the plan-level error
// types and node descriptions are in plan/errors.cpp).
#include <fmt/format.h>

#include "graphdsl/debug.hpp"
#include "graphdsl/detail/config.hpp"
#include "graphdsl/error.hpp"
#include "native/cuda_call.hpp"

namespace graphdsl {

namespace {
std::string cuda_message(cudaError_t code, const std::string& api, const std::optional<NodeInfo>& node,
                         const std::string& detail) {
  std::string msg = fmt::format("graphdsl: {} failed: {} ({})", api, cudaGetErrorName(code), cudaGetErrorString(code));
  if (node) msg += " at " + node->describe();
  if (!detail.empty()) msg += "; " + detail;
  return msg;
}
}  // namespace

CudaError::CudaError(cudaError_t code, std::string api, std::optional<NodeInfo> node, std::string detail)
    : Error(cuda_message(code, api, node, detail)), code_(code), api_(std::move(api)), node_(std::move(node)) {}

namespace detail {

void clear_last_error() noexcept { (void)cudaGetLastError(); }

void* driver_entry(const char* symbol, unsigned version) noexcept {
#if !GRAPHDSL_HAS_DRIVER_ENTRY  // cudaGetDriverEntryPointByVersion is CUDA 12.5's: the runtime path only
  (void)symbol;
  (void)version;
  return nullptr;
#else
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t rc = cuda_try(cudaGetDriverEntryPointByVersion, symbol, &fn, version,
                                  static_cast<unsigned long long>(cudaEnableDefault), &found);
  return rc == cudaSuccess && found == cudaDriverEntryPointSuccess ? fn : nullptr;
#endif
}

cudaFunction_t cached_function(KernelLookup& cache, const void* func, int device) noexcept {
  if (cache.func != func || cache.device != device) {
    cudaFunction_t function = nullptr;
    const bool found = cuda_try(cudaGetFuncBySymbol, &function, func) == cudaSuccess;
    cache = found ? KernelLookup{func, device, function} : KernelLookup{};
    if (!found) return nullptr;
  }
  return cache.function;
}

void throw_cuda(cudaError_t rc, const char* api, std::optional<NodeInfo> node, std::string detail) {
  throw CudaError(rc, api, std::move(node), std::move(detail));
}

}  // namespace detail

namespace debug {

std::uint64_t cuda_calls() noexcept { return detail::cuda_calls_on_thread; }

}  // namespace debug
}  // namespace graphdsl
