// src/native/driver_params.hpp — a kernel node's parameters in the driver's form, for the hot paths
// that call the driver through its entry points (native/cuda_call.hpp, driver_entry): adding kernel
// nodes (kinds/kernel_build.cpp), the kernel setters' driver call and the current context
// (exec/kernel_driver.cpp), which the memset and memcpy setters use too (exec/setters.cpp).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace graphdsl::detail {

/// A kernel node's parameters as the driver's CUDA_KERNEL_NODE_PARAMS, the function being
/// `function` (the host function looked up in the current context with cudaGetFuncBySymbol). Every
/// field is written once (no zeroing pass first), from values the caller passes in registers or
/// reads from its records: built from a cudaKernelNodeParams just written on the stack, the wide
/// loads of the copy would wait for the narrow stores (store forwarding), as the setters' profile
/// showed.
inline CUDA_KERNEL_NODE_PARAMS driver_kernel_params(cudaFunction_t function, const dim3& grid, const dim3& block,
                                                    unsigned int shared_bytes, void** params, void** extra) noexcept {
  CUDA_KERNEL_NODE_PARAMS d;
  d.func = function;
  d.gridDimX = grid.x;
  d.gridDimY = grid.y;
  d.gridDimZ = grid.z;
  d.blockDimX = block.x;
  d.blockDimY = block.y;
  d.blockDimZ = block.z;
  d.sharedMemBytes = shared_bytes;
  d.kernelParams = params;
  d.extra = extra;
  d.kern = nullptr;
  d.ctx = nullptr;
  return d;
}

/// `p` as the driver's CUDA_KERNEL_NODE_PARAMS, the function being `function` (p.func looked up in
/// the current context with cudaGetFuncBySymbol).
inline CUDA_KERNEL_NODE_PARAMS driver_kernel_params(const cudaKernelNodeParams& p, cudaFunction_t function) noexcept {
  return driver_kernel_params(function, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams, p.extra);
}

/// The current CUcontext through the driver's entry point (what the runtime's memset and memcpy
/// setters use), or null without the entry point or a current context (exec/kernel_driver.cpp).
CUcontext current_context() noexcept;

}  // namespace graphdsl::detail
