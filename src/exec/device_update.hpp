// src/exec/device_update.hpp — executables with device-updatable kernel nodes (exec/device_update.cpp):
// the checks when such a plan is compiled, and the re-upload host-side changes of such nodes need.
#pragma once

#include <cstdint>

#include "graphdsl/detail/graph_impl.hpp"
#include "native/native.hpp"

namespace graphdsl::detail {

/// The checks of a plan's device-updatable kernel nodes when it is compiled (none: no CUDA call):
/// a toolkit and a driver of CUDA 12.4 or newer, and each kernel's parameter layout on the device
/// (cudaFuncGetParamInfo) equal to the one DeviceKernelNode computes from the node's signature.
/// @throws UsageError naming the node and the rule; CudaError when a query fails.
void check_device_updatable(const GraphImpl& g);

/// After a host-side change of node i (setters, per-node update, set_enabled): an executable whose
/// device-updatable node changed must be uploaded again before its next launch (CUDA's rule).
inline void note_host_change(ExecImpl& x, std::uint32_t i) noexcept {
  if (!x.device_updatable) return;
  const GraphImpl& g = x.plan.impl();
  if (g.nodes[i].kind == NodeKind::kernel && device_updatable(g, g.nodes[i].payload)) x.needs_upload = true;
}

}  // namespace graphdsl::detail
