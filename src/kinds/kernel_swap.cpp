// src/kinds/kernel_swap.cpp — Executable::set_kernel with a kernel of another signature: the rules
// graphdsl can check before CUDA sees the change, the recorded plan's kernel record swapped (plan/
// records/kernel_swap.cpp) and the node patched with one cudaGraphExecKernelNodeSetParams, all or
// nothing. The same-signature set_kernel is Executable::replace_node (exec/setters.cpp).
#include <string>

#include <fmt/format.h>

#include "exec/patch.hpp"
#include "graphdsl/executable.hpp"
#include "native/cuda_call.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"
#include "plan/plan_access.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {
namespace {

/// Refuses a switch of kernel node i of `a` (its handle's parameters laid out as `signature`) to the
/// kernel of node #0 of `s`, for what graphdsl can tell CUDA or graphdsl itself would not take.
/// @throws UsageError naming the node and the rule.
void check_swap(const ExecImpl& x, const GraphImpl& a, std::uint32_t i, const GraphImpl& s, const ArgLayout& signature,
                unsigned calls_before, unsigned calls_after) {
  const std::uint32_t kernel = kernel_index(a, i);
  const ArgLayout& now = kernel_layout(a, kernel);
  const std::string node = a.info(i).describe();
  auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("set_kernel: {} cannot switch to a kernel of another signature: {}", node, why));
  };
  if (!same_layout(signature, now)) {
    refuse(
        fmt::format("the handle's signature ({} parameters, {} bytes) is not the one of the kernel the node "
                    "launches ({} parameters, {} bytes): a KernelNode handle of another signature, or one from "
                    "before an earlier switch (use the handle set_kernel returned)",
                    signature.count, signature.total, now.count, now.total));
  }
  const std::uint32_t sk = kernel_index(s, 0);
  if (device_updatable(a, kernel) || launch_of(s, sk).device_updatable) {
    refuse(
        "it is device-updatable (Launch::with_device_updatable), and device code holds its DeviceKernelNode, "
        "typed for the node's signature; compile a plan with the new kernel instead");
  }
  const unsigned added = calls_after & ~calls_before;
  if ((added & device_node_call) != 0) {
    refuse(
        "the new kernel takes a DeviceKernelNode and the node's kernel does not; CUDA does not switch a kernel "
        "node to a function making device-side node updates (cudaGraphExecKernelNodeSetParams); compile a plan "
        "with the new kernel instead");
  }
  if ((added & device_graph_call) != 0 && (x.flags & cudaGraphInstantiateFlagDeviceLaunch) == 0) {
    refuse(
        "the new kernel takes a DeviceGraph and the node's kernel does not; CUDA switches a kernel node of an "
        "executable not compiled for device launch to a function launching graphs from the device only where "
        "such a function ran at compile time, which graphdsl cannot tell; compile the plan with the new kernel, "
        "or with InstantiateOptions::device_launch()");
  }
  if (kernel_links_of(a, kernel).ph_count != 0 || kernel_links_of(s, sk).ph_count != 0) {
    refuse(
        "its kernel or the new one takes a Condition or GraphBuffer argument, which stands at a position of the "
        "signature; set_kernel of the node's own signature patches them, or compile a plan with the new kernel");
  }
  if (const std::uint32_t p = parameter_of_node(a, i); p != ConditionRef::unresolved) {
    refuse(
        fmt::format("it uses parameter {} of graph {}, which Executable::set writes at a position of the node's "
                    "signature; compile a plan with the new kernel instead",
                    a.param_ref(p), quoted(plan_name(a))));
  }
  check_setter_attributes(a, i, launch_of(a, kernel), launch_of(s, sk));
}

}  // namespace
}  // namespace detail

void Executable::swap_kernel(const Node& target, const Graph& source, const detail::ArgLayout* signature,
                             unsigned calls_before, unsigned calls_after) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const detail::GraphImpl& s = source.impl();
  const std::uint32_t i = detail::exec_index(x, target, NodeKind::kernel);
  detail::check_swap(x, a, i, s, *signature, calls_before, calls_after);
  const detail::KernelData& k = detail::kernel_of(s, 0);
  const detail::KernelSwap old = detail::swap_kernel(a, i, k.func, detail::kernel_layout(s, detail::kernel_index(s, 0)),
                                                     detail::argument_block(s, k), k.launch);
  detail::Applied applied;
  try {
    detail::check_node(a, i);            // the launch rules, on the node as it would be
    applied = detail::apply_node(x, i);  // one cudaGraphExecKernelNodeSetParams (may throw std::bad_alloc)
  } catch (...) {
    detail::undo_kernel_swap(a, old);
    throw;
  }
  if (applied.rc != cudaSuccess) {
    detail::undo_kernel_swap(a, old);
    detail::throw_cuda(applied.rc, applied.api, a.info(i));
  }
  ++x.function_changes;
  x.function_changed_node = i;
  detail::tidy_arguments(a);
}

}  // namespace graphdsl
