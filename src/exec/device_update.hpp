// src/exec/device_update.hpp — executables with device-updatable kernel nodes: the checks when such
// a plan is compiled (launch() uploads such an executable after host-side changes: ExecImpl::upload),
// defined with the kernel kind (src/kinds/kernel_device_update.cpp).
#pragma once

#include <cstdint>

#include "native/native.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// The checks of a plan's device-updatable kernel nodes when it is compiled (none: no CUDA call):
/// a toolkit and a driver of CUDA 12.4 or newer, and each kernel's parameter layout on the device
/// (cudaFuncGetParamInfo) equal to the one DeviceKernelNode computes from the node's signature.
/// Returns whether the plan has such nodes (ExecImpl::device_updatable).
/// @throws UsageError naming the node and the rule; CudaError when a query fails.
bool check_device_updatable(const GraphImpl& g);

}  // namespace graphdsl::detail
