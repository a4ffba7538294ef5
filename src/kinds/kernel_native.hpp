// src/kinds/kernel_native.hpp — what the kernel kind's files (src/kinds/kernel*.cpp) share of the
// native and exec layers: the kernel's parameters for CUDA, its launch attributes on the device
// (checked against the device it is created on, set on the native node), the node add through the
// driver (src/kinds/kernel_build.cpp). The rules that need no device are in the rules section of
// src/kinds/kernel.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "native/cuda_call.hpp"  // KernelLookup
#include "native/native.hpp"     // HandleScopes
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// The launch attributes against the device the node is created on (the current one): a cluster
/// needs compute capability 9.0 and, above 8 blocks, a kernel that allows a non-portable size; a
/// cooperative grid must fit on the device at once; an L2 window is at most the device's largest.
/// `context` is where the plan being built is nested (NodeInfo::context of the message).
/// @throws UsageError naming the node; CudaError when a query fails.
void check_attributes_on_device(const GraphImpl& g, std::uint32_t i, const std::string& context, const KernelData& k,
                                const Launch& l);

/// cudaGraphAddKernelNode with `p`, first through the driver's cuGraphAddKernelNode (its entry
/// point, the kernel's CUfunction from function_in_context): measured 0.56-0.69 of the runtime
/// call's time on an H200. On any failure of that attempt the runtime call is made, so the error
/// reported and its translation stay the runtime's (native/cuda_call.hpp). `memo`: the build's
/// memo of the current context (Builder::context_memo), or null to ask the driver.
cudaError_t add_kernel_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t count,
                            const cudaKernelNodeParams& p, ContextMemo* memo) noexcept;

/// Sets the node's priority and launch attributes (those not at their defaults); `api` receives
/// the name of the last call made. With `rewrite`, the node already has attributes that may differ:
/// the priority, memory synchronization domain and L2 window (what an update can change) are
/// written at their defaults too.
cudaError_t set_attributes(cudaGraphNode_t node, int priority, const KernelAttributes* l, const char*& api,
                           bool rewrite = false);

/// The cudaKernelNodeParams of kernel `kernel` (an index: kernel_index) of plan `g`; `argv` receives
/// the argument pointers and `block` the argument bytes, with Condition arguments replaced by their
/// handles from `scopes`.
cudaKernelNodeParams kernel_params(const GraphImpl& g, std::uint32_t kernel, const HandleScopes& scopes,
                                   const std::vector<void*>& dptrs, std::vector<unsigned char>& block,
                                   std::vector<void*>& argv);
/// Whether a kernel whose links are `l` can be patched from a plain argument block (kernel_direct):
/// no Condition or GraphBuffer argument to resolve, and few enough arguments for the argument array
/// on the stack.
inline bool direct_kernel(const KernelLinks& l) { return l.ph_count == 0 && l.layout->count <= max_setter_args; }

/// Patches kernel node i of plan `g` (the recorded plan, or a plan nested in it: Executable::set),
/// whose native node is `node`, with k's launch and the argument block `block` packed by `layout`
/// (direct_kernel of the node's links, k the node's record, `layout` its links' layout): the direct
/// path of the kernel setters and Executable::set, with no plan built and no heap allocation, in the
/// node's context.
cudaError_t kernel_direct(ExecImpl& x, const GraphImpl& g, std::uint32_t i, cudaGraphNode_t node, const KernelData& k,
                          const ArgLayout& layout, const unsigned char* block);

}  // namespace graphdsl::detail
