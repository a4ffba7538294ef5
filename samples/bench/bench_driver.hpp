// samples/bench/bench_driver.hpp — driver functions reached through the runtime's entry point (no
// libcuda link), for the "floor" rows of the setter sections: the driver's own setters, the
// runtime's work taken away.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "sample_util.hpp"

namespace bench {

/// The driver function `symbol` of ABI `version` as type F; null (and a line saying which row is
/// left out) when the driver lacks it.
template <class F>
F driver_fn(const char* symbol, unsigned version, const char* row) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess) fmt::print("  {}: {} not found, row left out\n", row, symbol);
  return found == cudaDriverEntryPointSuccess ? reinterpret_cast<F>(fn) : nullptr;
}

/// The current context, which the driver's memset and memcpy setters take (graphdsl passes the
/// context its executable's nodes were made in, known at compile); null where it cannot be had.
inline CUcontext bench_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  const auto get = driver_fn<GetCurrent>("cuCtxGetCurrent", 4000, "memset and memcpy floors");
  CUcontext ctx = nullptr;
  if (get != nullptr && get(&ctx) != CUDA_SUCCESS) ctx = nullptr;
  return ctx;
}

}  // namespace bench
