// src/cuda_call.hpp — the one checked path every CUDA runtime call of graphdsl goes through.
//
//   cuda_try(fn, args...)            counts the call, runs it, clears the sticky last error on failure,
//                                    returns the cudaError_t (for destructors and refusal paths)
//   GRAPHDSL_CHECK(fn, args...)      cuda_try, then throws CudaError naming `fn` on failure
//   throw_cuda(rc, api, node, hint)  builds and throws the CudaError (message built once, on failure)
#pragma once

#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "graphdsl/error.hpp"

namespace graphdsl::detail {

void count_cuda_call() noexcept;
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

template <class F, class... A>
void cuda_check(const char* api, F fn, A... args) {
  const cudaError_t rc = cuda_try(fn, args...);
  if (rc != cudaSuccess) throw_cuda(rc, api);
}

}  // namespace graphdsl::detail

#define GRAPHDSL_CHECK(fn, ...) ::graphdsl::detail::cuda_check(#fn, fn, __VA_ARGS__)
