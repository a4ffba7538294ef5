// src/exec/patch.hpp — patching one node of an executable (exec/setters.cpp): the per-node setter
// of any kind (apply_node, through the kind table) and the setters' driver calls, shared by
// Executable::update, the typed setters, Executable::set and the patch sections of src/kinds/ (the
// kernel setters' direct path is the kernel kind's: src/kinds/kernel_native.hpp).
#pragma once

#include <cstdint>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "exec/kind_patch.hpp"
#include "native/native.hpp"
#include "plan/graph_impl.hpp"
#include "plan/replace.hpp"  // same_layout

namespace graphdsl::detail {

// The operations that patch a node mark the executable changed (mark_changed, native/native.hpp)
// once, before their driver call: apply_node, kernel_direct (src/kinds/kernel_patch.cpp), and the
// callers of the three exec_*_set_params wrappers outside them (the memset and memcpy setters,
// Executable::set's nested nodes: PatchOps::patch_param). The wrappers make the driver call only.

/// The driver's cuGraphExecKernelNodeSetParams of `exec` (or, with a null `exec`,
/// cuGraphKernelNodeSetParams of the executable's own graph) with the launch given field by field
/// and `function` the host function; false without that entry point, when the kernel's CUfunction
/// cannot be had in the node's context, or when the driver refuses (exec/kernel_driver.cpp). The
/// caller then makes the runtime call.
bool driver_kernel_set(ExecImpl& x, CUgraphExec exec, cudaGraphNode_t node, const void* function, const dim3& grid,
                       const dim3& block, unsigned int shared_bytes, void** params, void** extra) noexcept;

/// The driver's cuGraphExecKernelNodeSetParams of `exec` with `d` (the kernel setters' short path,
/// whose records hold the CUfunction): false without that entry point or when the driver refuses.
bool driver_exec_kernel_set(CUgraphExec exec, cudaGraphNode_t node, const CUDA_KERNEL_NODE_PARAMS& d) noexcept;

/// set_kernel_args and set_launch from node ref.index's setter record (KernelSetterRecord): the
/// handle's plan checked, the driver's call made with `args` (laid out as `layout`; null: the
/// recorded arguments) and `launch` (null: the recorded shape), and both recorded in the plan,
/// reading the record, the executable and the plan's arena only. False, with nothing changed, when
/// the record is missing, stale or of another layout, the handle is not one the executable accepts,
/// the launch is one the kernel rules or launch attributes have to look at, or the driver refuses:
/// the caller then takes the checked path, which reports what is wrong.
bool set_from_record(ExecImpl& x, const NodeRef& ref, const unsigned char* args, const ArgLayout* layout,
                     const Launch* launch) noexcept;  // src/kinds/kernel_patch.cpp

/// After the kernel setters' direct path patched node i of a single-device executable with the
/// driver: its setter record made (the records allocated with the first) or brought in step.
void keep_setter_record(ExecImpl& x, std::uint32_t i, const KernelData& k, const ArgLayout& layout) noexcept;

/// cudaGraphExecKernelNodeSetParams for the kernel setters and per-node updates, through the
/// driver's entry point where it can (see exec/kernel_driver.cpp).
cudaError_t exec_kernel_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaKernelNodeParams& p);

/// cudaGraphKernelNodeSetParams on a node of the executable's own graph (the whole-graph update in
/// place, PatchOps::patch_graph), the same way: the driver's entry point first, then the runtime.
cudaError_t graph_kernel_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaKernelNodeParams& p);

/// cudaGraphExecMemsetNodeSetParams and cudaGraphExecMemcpyNodeSetParams for the setters, per-node
/// updates and Executable::set: the driver's entry point with the current context first (a memcpy
/// between pointers; arrays go to the runtime), then, on any failure, the runtime call, whose error
/// is the one reported (as exec_kernel_set_params).
cudaError_t exec_memset_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaMemsetParams& p);
cudaError_t exec_memcpy_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaMemcpy3DParms& p);
/// exec_memcpy_set_params behind the checked-copies rule (exec/copy_check.cpp): the one way a
/// per-node change reaches a memcpy node of an executable.
Applied set_memcpy_node(ExecImpl& x, cudaGraphNode_t node, const cudaMemcpy3DParms& p);
/// Turns checked copies on for `x` (just compiled) and records which copy ends are device memory.
void record_copy_ends(ExecImpl& x);
/// Whether GRAPHDSL_CHECK_COPIES asks for checked copies (set, not empty, not "0"), as it was at the
/// first compile of the process.
bool copies_checked_by_environment() noexcept;
/// cudaGraphExecChildGraphNodeSetParams of child node `node` with `child` (a materialized child
/// plan) for set_child and per-node updates: the driver's entry point first, then the runtime.
cudaError_t exec_child_set_params(ExecImpl& x, cudaGraphNode_t node, cudaGraph_t child);
/// Sets child node i of the executable to `child` with exec_child_set_params, as an Applied: what
/// set_child (a kept or prepared graph) and the child kind's patch (a graph just built) call.
inline Applied set_child_node(ExecImpl& x, std::uint32_t i, cudaGraph_t child) {
  return {exec_child_set_params(x, x.native.nodes[i], child), "cudaGraphExecChildGraphNodeSetParams"};
}
/// Materializes the child plan that child node i of x's recorded plan holds into `m` and sets the
/// node's graph to it (the child kind's per-node patch; set_child keeps `m`).
Applied apply_child_plan(ExecImpl& x, std::uint32_t i, Materialized& m);

/// Pushes the recorded parameters of plan node i to the executable with one per-node setter (the
/// kind's PatchOps::apply, in the node's context).
Applied apply_node(ExecImpl& x, std::uint32_t i);

}  // namespace graphdsl::detail
