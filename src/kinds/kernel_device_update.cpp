// src/kinds/kernel_device_update.cpp — executables with device-updatable kernel nodes: the checks
// when such a plan is compiled (versions, the kernels' parameter layouts) and Executable::device_node.
#include "exec/device_update.hpp"
#include "graphdsl/detail/config.hpp"

#include <fmt/format.h>

#include "exec/patch.hpp"
#include "graphdsl/executable.hpp"
#include "native/cuda_call.hpp"
#include "plan/plan_access.hpp"

namespace graphdsl {
namespace detail {
namespace {

std::string cuda_text(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

/// The kernel's parameters on the device (cudaFuncGetParamInfo) against the offsets and sizes
/// DeviceKernelNode<P...> writes at (ArgLayout::abi_offsets), parameter by parameter.
void check_param_layout(const GraphImpl& g, std::uint32_t i) {
#if GRAPHDSL_HAS_DEVICE_NODES
  const KernelData& k = kernel_of(g, i);
  const ArgLayout& l = kernel_layout(g, kernel_index(g, i));
  for (std::uint32_t p = 0; p < l.count; ++p) {
    std::size_t offset = 0, size = 0;
    const cudaError_t rc = cuda_try(cudaFuncGetParamInfo, k.func, std::size_t{p}, &offset, &size);
    if (rc != cudaSuccess) throw_cuda(rc, "cudaFuncGetParamInfo", g.info(i), fmt::format("parameter {}", p + 1));
    const std::uint32_t want = l.abi_offsets != nullptr ? l.abi_offsets[p] : l.offsets[p];
    if (offset != want || size != l.sizes[p]) {
      throw UsageError(
          fmt::format("{}: parameter {} of its kernel is at byte {} ({} bytes) of the kernel's parameter buffer "
                      "on the device (cudaFuncGetParamInfo), but its DeviceKernelNode would write it at byte {} "
                      "({} bytes); a device-updatable node's kernel must have the parameter types its "
                      "KernelNode names, laid out at their alignment",
                      g.info(i).describe(), p + 1, offset, size, want, l.sizes[p]));
    }
  }
#else
  (void)g;
  (void)i;
#endif
}

}  // namespace

bool check_device_updatable(const GraphImpl& g) {
  const std::uint32_t first = first_device_updatable(g);
  if (first == ConditionRef::unresolved) return false;
#if !GRAPHDSL_HAS_DEVICE_NODES
  throw UsageError(fmt::format("{} is device-updatable, which needs CUDA 12.4; graphdsl was built with CUDA {}",
                               g.info(first).describe(), cuda_text(CUDART_VERSION)));
#else
  int driver = 0;
  GRAPHDSL_CHECK(cudaDriverGetVersion, &driver);
  if (driver < 12040) {
    throw UsageError(
        fmt::format("{} is device-updatable, which needs CUDA 12.4 (a driver of release 550 or newer); this "
                    "driver supports CUDA {}",
                    g.info(first).describe(), cuda_text(driver)));
  }
  for (std::uint32_t i = first; i < node_count(g); ++i) {
    if (node_kind(g, i) == NodeKind::kernel && device_updatable(g, kernel_index(g, i))) check_param_layout(g, i);
  }
  return true;
#endif
}

}  // namespace detail

detail::DeviceNodeHandle Executable::device_node_handle(const Node& node, const detail::ArgLayout* signature) const {
  if (!impl_) {
    throw UsageError(
        fmt::format("Executable::device_node({}): the executable is empty (default-constructed or "
                    "moved-from)",
                    node.info().describe()));
  }
  const detail::ExecImpl& x = *impl_.get();
  const detail::GraphImpl& a = detail::recorded_plan(x);
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::kernel);
  const detail::ArgLayout& layout = detail::kernel_layout(a, detail::kernel_index(a, i));
  if (!detail::same_layout(*signature, layout)) {
    throw UsageError(
        fmt::format("{}: the handle's parameter list ({} parameters, {} bytes) is not its kernel's ({} parameters, "
                    "{} bytes): a KernelNode handle of another signature (node_cast checks it)",
                    a.info(i).describe(), signature->count, signature->total, layout.count, layout.total));
  }
  if (!detail::device_updatable(a, detail::kernel_index(a, i))) {
    throw UsageError(
        fmt::format("{} is not device-updatable: Executable::device_node() gives the handles of kernel nodes "
                    "marked with Launch::with_device_updatable() in the plan the executable was compiled from",
                    a.info(i).describe()));
  }
#if GRAPHDSL_HAS_DEVICE_NODES
  cudaLaunchAttributeValue v{};
  const cudaError_t rc = detail::cuda_try(cudaGraphKernelNodeGetAttribute, x.native.nodes[i],
                                          cudaLaunchAttributeDeviceUpdatableKernelNode, &v);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphKernelNodeGetAttribute", a.info(i));
  if (v.deviceUpdatableKernelNode.devNode == nullptr) {
    detail::throw_cuda(cudaErrorInvalidValue, "cudaGraphKernelNodeGetAttribute", a.info(i),
                       "the driver returned no device handle for the device-updatable node");
  }
  return v.deviceUpdatableKernelNode.devNode;
#else
  return nullptr;  // not reached: compile() refuses device-updatable nodes before CUDA 12.4
#endif
}

}  // namespace graphdsl
