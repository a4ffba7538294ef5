// src/native/launch_attributes.hpp — a kernel node's launch attributes on the device: the checks
// against the device it is created on and setting them on the native node (materialize, the build
// section of src/kinds/kernel.cpp). The rules that need no device are in src/plan/rules.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "native/cuda_call.hpp"  // KernelLookup
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
/// point, the function from `cache`): measured 0.56-0.69 of the runtime call's time
/// on an H200. On any failure of that attempt the runtime call is
/// made, so the error reported and its translation stay the runtime's (native/cuda_call.hpp).
/// `device` is the current device (the function is looked up for it); -1 (unknown) takes the
/// runtime call.
cudaError_t add_kernel_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps, std::size_t count,
                            const cudaKernelNodeParams& p, KernelLookup& cache, int device) noexcept;

/// Sets the node's priority and launch attributes (those not at their defaults); `api` receives
/// the name of the last call made. With `rewrite`, the node already has attributes that may differ:
/// the priority, memory synchronization domain and L2 window (what an update can change) are
/// written at their defaults too.
cudaError_t set_attributes(cudaGraphNode_t node, int priority, const KernelAttributes* l, const char*& api,
                           bool rewrite = false);

}  // namespace graphdsl::detail
