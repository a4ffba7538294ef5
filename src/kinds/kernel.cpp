// src/kinds/kernel.cpp — the kernel node kind (Graph::add_kernel): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RuleOps rules{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const RaceOps races{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

#include <string>
#include <vector>

#include <fmt/format.h>

#include "native/builder.hpp"
#include "native/cuda_call.hpp"
#include "native/launch_attributes.hpp"

namespace graphdsl::detail::kinds::kernel {
namespace building {
namespace {

/// What the message of a failed kernel node creation adds (empty: nothing).
std::string kernel_hint(cudaError_t rc, const KernelData& k) {
  if (rc == cudaErrorInvalidDeviceFunction || rc == cudaErrorInvalidResourceHandle) {
    return "the function is not a __global__ kernel compiled for this device (check CMAKE_CUDA_ARCHITECTURES)";
  }
  if (rc == cudaErrorInvalidValue && k.launch.shared_bytes > 48u * 1024u) {
    return fmt::format("{} bytes of dynamic shared memory is above the default 48 KiB; raise the kernel's limit "
                       "with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, {})",
                       k.launch.shared_bytes, k.launch.shared_bytes);
  }
  return {};
}

AddedNode add(Builder& builder, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
              const std::vector<cudaGraphNode_t>& deps) {
  const NodeData& n = g.nodes[i];
  const KernelData& k = g.kernels[n.payload];
  const cudaKernelNodeParams p = kernel_params(g, k, builder.scopes_, builder.dptrs_, builder.block_, builder.argv_);
  const KernelAttributes* attributes = attributes_of(g, n.payload);
  if (attributes != nullptr) check_attributes_on_device(g, i, builder.where_, k, launch_of(g, n.payload));
  AddedNode out;
  out.api = "cudaGraphAddKernelNode";
  out.rc = cuda_try(cudaGraphAddKernelNode, &out.node, graph, deps.data(), deps.size(),
                    static_cast<const cudaKernelNodeParams*>(&p));
  if (out.rc == cudaSuccess) out.rc = set_attributes(out.node, k.launch.priority, attributes, out.api);
  if (out.rc != cudaSuccess) out.hint = kernel_hint(out.rc, k);
  return out;
}

}  // namespace
}  // namespace building

const BuildOps build{&building::add, false};

}  // namespace graphdsl::detail::kinds::kernel

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::kernel {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::kernel

// ==== end patch ====
