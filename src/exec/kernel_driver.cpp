// src/exec/kernel_driver.cpp — the kernel and child setters' driver path (exec/patch.hpp): the
// driver's entry points first, with the kernel's CUfunction looked up once per executable, kernel
// and context, then the runtime call, whose error is the one reported.
#include <cuda.h>

#include "exec/patch.hpp"
#include "native/cuda_call.hpp"
#include "native/driver_params.hpp"
#include "native/native.hpp"

namespace graphdsl::detail {

namespace {

/// The CUfunction of kernel `function` in the context of the node being patched. A CUfunction
/// belongs to one context, and the driver's graph setters take another context's without a word
/// (the node then holds that function, and a later cudaGraphExecUpdate of a node on another device
/// is refused with cudaGraphExecUpdateErrorUnsupportedFunctionChange): a cached handle serves only
/// the context it was looked up in. A single-device executable knows its context (x.context): the
/// lookup is made there only, and the hot path asks CUDA nothing. The nodes of a plan placed on
/// several devices are patched with their device current (DeviceScope): the current context is
/// asked, and a change of context looks the function up again. Null when the lookup fails or is
/// made in another context than the executable's (the runtime call then decides).
cudaFunction_t setter_function(ExecImpl& x, const void* function) noexcept {
  if (x.context != nullptr && x.setter_kernel.func == function) return x.setter_kernel.function;
  const CUcontext ctx = current_context();
  if (ctx == nullptr || (x.context != nullptr && ctx != x.context)) return nullptr;
  if (x.setter_context != ctx) {
    x.setter_kernel = KernelLookup{};
    x.setter_context = ctx;
  }
  return cached_function(x.setter_kernel, function, -1);
}

using SetExec = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
/// The driver's cuGraphExecKernelNodeSetParams (null without it), looked up at the first call.
SetExec exec_setter() noexcept {
  static const auto set = reinterpret_cast<SetExec>(driver_entry("cuGraphExecKernelNodeSetParams", 12000));
  return set;
}

}  // namespace

/// The driver's half of exec_kernel_set_params and graph_kernel_set_params (the launch given field
/// by field, `function` the host function): cuGraphExecKernelNodeSetParams of `exec`, or without
/// one cuGraphKernelNodeSetParams of the executable's own graph, with the kernel's CUfunction in
/// the node's context (setter_function: looked up once per executable, kernel and context; the
/// runtime's own call looks it up and converts the parameters on every call). False without that
/// entry point, when the lookup fails, or when the driver refuses; a refusal also forgets the
/// function, and the next call looks it up again.
bool driver_kernel_set(ExecImpl& x, CUgraphExec exec, cudaGraphNode_t node, const void* function, const dim3& grid,
                       const dim3& block, unsigned int shared_bytes, void** params, void** extra) noexcept {
  using SetGraph = CUresult (*)(CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);
  static const auto set_graph = reinterpret_cast<SetGraph>(driver_entry("cuGraphKernelNodeSetParams", 12000));
  const SetExec set_exec = exec_setter();
  if ((exec != nullptr ? set_exec == nullptr : set_graph == nullptr)) return false;
  const cudaFunction_t f = setter_function(x, function);
  if (f == nullptr) return false;
  const CUDA_KERNEL_NODE_PARAMS d = driver_kernel_params(f, grid, block, shared_bytes, params, extra);
  count_cuda_call();
  if ((exec != nullptr ? set_exec(exec, node, &d) : set_graph(node, &d)) == CUDA_SUCCESS) return true;
  x.setter_kernel = KernelLookup{};
  return false;
}

bool driver_exec_kernel_set(CUgraphExec exec, cudaGraphNode_t node, const CUDA_KERNEL_NODE_PARAMS& d) noexcept {
  const SetExec set_exec = exec_setter();
  if (set_exec == nullptr) return false;
  count_cuda_call();
  return set_exec(exec, node, &d) == CUDA_SUCCESS;
}

/// cudaGraphExecKernelNodeSetParams for the kernel setters and per-node updates: first the driver's
/// entry point (driver_kernel_set), then, on any failure or without that entry point, the runtime
/// call, whose error is the one reported (cuda_call.hpp, driver_entry).
cudaError_t exec_kernel_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaKernelNodeParams& p) {
  if (driver_kernel_set(x, x.exec.get(), node, p.func, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams,
                        p.extra)) {
    return cudaSuccess;
  }
  return cuda_try(cudaGraphExecKernelNodeSetParams, x.exec.get(), node, &p);
}

cudaError_t graph_kernel_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaKernelNodeParams& p) {
  if (driver_kernel_set(x, nullptr, node, p.func, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams, p.extra)) {
    return cudaSuccess;
  }
  return cuda_try(cudaGraphKernelNodeSetParams, node, &p);
}

CUcontext current_context() noexcept {
  using GetCurrent = CUresult (*)(CUcontext*);
  static const auto get = reinterpret_cast<GetCurrent>(driver_entry("cuCtxGetCurrent", 4000));
  CUcontext ctx = nullptr;
  if (get == nullptr || get(&ctx) != CUDA_SUCCESS) return nullptr;
  return ctx;
}

cudaError_t exec_child_set_params(ExecImpl& x, cudaGraphNode_t node, cudaGraph_t child) {
  using SetChild = CUresult (*)(CUgraphExec, CUgraphNode, CUgraph);
  static const auto driver = reinterpret_cast<SetChild>(driver_entry("cuGraphExecChildGraphNodeSetParams", 11010));
  return driver_first(driver, cudaGraphExecChildGraphNodeSetParams, x.exec.get(), node, child);
}

}  // namespace graphdsl::detail
