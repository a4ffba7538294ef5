// src/native/driver_params.hpp — a kernel node's parameters in the driver's form, for the hot paths
// that call the driver through its entry points (native/cuda_call.hpp, driver_entry): adding kernel
// nodes (native/launch_attributes.cpp) and the kernel setter (exec/setters.cpp).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace graphdsl::detail {

/// `p` as the driver's CUDA_KERNEL_NODE_PARAMS, the function being `function` (p.func looked up in
/// the current context with cudaGetFuncBySymbol).
inline CUDA_KERNEL_NODE_PARAMS driver_kernel_params(const cudaKernelNodeParams& p, cudaFunction_t function) noexcept {
  CUDA_KERNEL_NODE_PARAMS d{};
  d.func = function;
  d.gridDimX = p.gridDim.x;
  d.gridDimY = p.gridDim.y;
  d.gridDimZ = p.gridDim.z;
  d.blockDimX = p.blockDim.x;
  d.blockDimY = p.blockDim.y;
  d.blockDimZ = p.blockDim.z;
  d.sharedMemBytes = p.sharedMemBytes;
  d.kernelParams = p.kernelParams;
  d.extra = p.extra;
  return d;
}

}  // namespace graphdsl::detail
