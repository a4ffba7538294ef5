// src/kinds/kernel_patch.cpp — patching a kernel node of an executable: the kind's PatchOps (the
// per-node setter, the whole-graph patch, what an update needs, a parameter's patch) and the
// kernel setters' direct path (kernel_direct, Executable::set_kernel_params, which build no plan
// and allocate nothing where the node's arguments are plain values).
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "exec/kind_patch.hpp"
#include "exec/patch.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "kinds/kernel_native.hpp"
#include "kinds/kinds.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/driver_params.hpp"
#include "native/native.hpp"
#include "plan/diff.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/replace.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {

cudaError_t kernel_direct(ExecImpl& x, const GraphImpl& g, std::uint32_t i, cudaGraphNode_t node, const KernelData& k,
                          const ArgLayout& layout, const unsigned char* block) {
  std::array<void*, max_setter_args> argv;  // not zeroed: kernel_argv fills the layout's count
  void** params = kernel_argv(layout, block, argv.data());
  const DeviceScope device(node_device(g, i, -1));
  if (&g == &recorded_plan(x)) {
    mark_node_patched(x, i);
  } else {
    mark_changed(x);  // a node of a nested plan (Executable::set)
  }
  // exec_kernel_set_params, with the driver's parameters built from the records (no
  // cudaKernelNodeParams in between), and the runtime's only for the runtime call
  if (driver_kernel_set(x, x.exec.get(), node, k.func, k.launch.grid, k.launch.block, k.launch.shared_bytes, params,
                        nullptr)) {
    return cudaSuccess;
  }
  const cudaKernelNodeParams p = kernel_node_params(k, layout, block, argv.data());
  return cuda_try(cudaGraphExecKernelNodeSetParams, x.exec.get(), node, &p);
}

bool set_from_record(ExecImpl& x, const NodeRef& ref, const unsigned char* args, const ArgLayout* layout,
                     const Launch* launch) noexcept {
  if (ref.index >= x.setter_records.size()) return false;
  KernelSetterRecord& r = x.setter_records[ref.index];
  if (r.epoch != x.setter_epoch || (args != nullptr && r.layout != layout)) return false;
  GraphImpl& a = x.plan.impl();
  if (!handle_plan_accepted(x, a, ref.plan)) return false;
  // A new launch shape takes this path when the kernel rules have nothing to say of it (they would
  // name the rule it breaks) and no launch attributes are involved.
  if (launch != nullptr &&
      (launch->has_attributes() || has_launch_attributes(a) || !launch_shape_allowed(launch->grid, launch->block))) {
    return false;
  }
  const dim3& grid = launch != nullptr ? launch->grid : r.grid;
  const dim3& block = launch != nullptr ? launch->block : r.block;
  const unsigned int shared_bytes = launch != nullptr ? launch->shared_bytes : r.shared_bytes;
  const unsigned char* from = args != nullptr ? args : argument_block_at(a, r.args);
  void* argv[max_setter_args];
  const CUDA_KERNEL_NODE_PARAMS d = driver_kernel_params(r.function, grid, block, shared_bytes,
                                                         kernel_argv(*r.layout, from, argv), nullptr);
  mark_node_patched(x, ref.index);
  if (!driver_exec_kernel_set(x.exec.get(), r.node, d)) return false;
  if (args != nullptr) std::memcpy(argument_block_at(a, r.args), args, r.layout->total);
  if (launch != nullptr) {
    LaunchShape& recorded = kernel_of(a, ref.index).launch;
    recorded.grid = r.grid = launch->grid;
    recorded.block = r.block = launch->block;
    recorded.shared_bytes = r.shared_bytes = launch->shared_bytes;  // the priority stays: CUDA patches none per node
  }
  return true;
}

void keep_setter_record(ExecImpl& x, std::uint32_t i, const KernelData& k, const ArgLayout& layout) noexcept {
  if (x.context == nullptr || x.setter_kernel.func != k.func || x.setter_kernel.function == nullptr) return;
  if (x.setter_records.empty()) {
    try {
      x.setter_records.resize(x.native.nodes.size());
    } catch (...) {  // the records only spare reads: without them every call takes the checked path
      return;
    }
  }
  KernelSetterRecord& r = x.setter_records[i];
  r.node = x.native.nodes[i];
  r.function = x.setter_kernel.function;
  r.layout = &layout;
  r.args = k.args;
  r.grid = k.launch.grid;
  r.block = k.launch.block;
  r.shared_bytes = k.launch.shared_bytes;
  r.epoch = x.setter_epoch;
}

}  // namespace detail

// ---- Executable: the kernel setters (their checks: plan/replace.hpp) ---------------------------

const void* Executable::recorded_function(const Node& node) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& a = detail::recorded_plan(x);
  return detail::kernel_of(a, detail::exec_index(x, node, NodeKind::kernel)).func;
}

Launch Executable::recorded_launch(const Node& node) const {
  const detail::ExecImpl& x = impl();
  const detail::GraphImpl& a = detail::recorded_plan(x);
  return detail::launch_of(a, detail::kernel_index(a, detail::exec_index(x, node, NodeKind::kernel)));
}

void Executable::set_kernel_params(const Node& node, const unsigned char* args, const detail::ArgLayout* layout,
                                   const Launch* launch) {
  detail::ExecImpl& x = impl();
  if (detail::set_from_record(x, node.ref(), args, layout, launch)) return;
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::kernel);
  const std::uint32_t kernel = detail::kernel_index(a, i);
  detail::KernelData& k = detail::kernel_of(a, i);
  const detail::KernelLinks& links = detail::kernel_links_of(a, kernel);
  const bool direct = detail::direct_kernel(links) && (args == nullptr || detail::same_layout(*layout, *links.layout));
  if (!direct) {  // Conditions or GraphBuffers to resolve and compare: the general path
    Graph one("setter");
    const unsigned char* from = args != nullptr ? args : detail::argument_block(a, k);
    const detail::ArgLayout* l = args != nullptr ? layout : links.layout;
    std::size_t offset = 0;
    std::copy(from, from + l->total, one.add_argument_block(l->total, offset));
    const Launch recorded = detail::launch_of(a, kernel);
    if (launch != nullptr) detail::check_setter_attributes(a, i, recorded, *launch);
    Launch shape = launch != nullptr ? *launch : recorded;
    shape.priority = recorded.priority;  // CUDA cannot patch a priority per node
    // A new launch keeps the recorded arguments, Conditions and GraphBuffers included; new
    // arguments are plain values, which replace_node refuses where the recorded ones are not.
    std::vector<detail::PlaceholderArg> same;
    if (args == nullptr) {
      for (std::uint32_t c = 0; c < links.ph_count; ++c) {
        const detail::KernelPlaceholder& ph = detail::kernel_placeholder(a, links, c);
        same.push_back(detail::PlaceholderArg{ph.offset, ph.kind, ph.uid, ph.bytes});
      }
    }
    one.add_kernel_node(k.func, shape, l, offset, same.data(), same.size());
    replace_node(node, one);
    return;
  }
  // The launch rules first (before any CUDA call), on the recorded kernel with the new shape; the
  // recorded launch is put back on any failure.
  // (The attributes are the recorded ones, so only the record's shape changes.)
  struct KeepLaunch {
    detail::KernelData& k;
    detail::LaunchShape old;
    bool done = false;
    ~KeepLaunch() {
      if (!done) k.launch = old;
    }
  } keep{k, k.launch};
  if (launch != nullptr) {
    if (detail::has_launch_attributes(a)) {
      detail::check_setter_attributes(a, i, detail::launch_of(a, kernel), *launch);
    } else if (launch->has_attributes()) {
      detail::check_setter_attributes(a, i, Launch{}, *launch);
    }
    k.launch = detail::LaunchShape{launch->grid, launch->block, launch->shared_bytes, keep.old.priority};
    detail::check_node(a, i);
  }
  const cudaError_t rc = detail::kernel_direct(x, a, i, x.native.nodes[i], k, *links.layout,
                                               args != nullptr ? args : detail::argument_block(a, k));
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphExecKernelNodeSetParams", a.info(i));
  if (args != nullptr) std::memcpy(detail::argument_block(a, k), args, links.layout->total);
  keep.done = true;
  detail::keep_setter_record(x, i, k, *links.layout);
}

namespace detail::kinds::kernel {
namespace patch_fns {  // the patch concern's functions

Applied apply(ExecImpl& x, std::uint32_t i) {
  const GraphImpl& g = recorded_plan(x);
  std::vector<void*> argv;
  std::vector<unsigned char> block;
  const cudaKernelNodeParams p = detail::kernel_params(g, g.nodes[i].payload, HandleScopes{x.native.handles},
                                                       x.native.dptrs, block, argv);
  return {exec_kernel_set_params(x, x.native.nodes[i], p), "cudaGraphExecKernelNodeSetParams"};
}

Applied patch_graph(ExecImpl& x, const GraphImpl& from, std::uint32_t i) {
  // Called once per changed node of a whole-graph update: the buffers are the thread's, kept.
  thread_local std::vector<void*> argv;
  thread_local std::vector<unsigned char> block;
  const cudaKernelNodeParams p = detail::kernel_params(from, from.nodes[i].payload, HandleScopes{x.native.handles},
                                                       x.native.dptrs, block, argv);
  Applied applied{graph_kernel_set_params(x, x.native.nodes[i], p), "cudaGraphKernelNodeSetParams"};
  if (applied.rc == cudaSuccess && x.attributes_behind) {  // a whole-graph update may have changed them
    applied.rc = set_attributes(x.native.nodes[i], from.kernels[from.nodes[i].payload].launch.priority,
                                attributes_of(from, from.nodes[i].payload), applied.api, true);
  }
  return applied;
}

/// A kernel's priority and launch attributes are not patched per node (its cluster shape and
/// cooperative launch are shape: the diff refuses their change, compare section).
std::optional<UpdateResult> update_needs(const GraphImpl& a, const GraphImpl& t, std::uint32_t i, UpdateNeeds& needs) {
  const Launch la = launch_of(a, a.nodes[i].payload);
  const Launch lt = launch_of(t, t.nodes[i].payload);
  needs.priority_changed |= !same_attributes(la, lt);
  return std::nullopt;
}

/// The condition handles seen from nested plan `entry` of x.native.nested (outermost first), for
/// kernel_params.
HandleScopes scopes_of(const ExecImpl& x, std::uint32_t entry) {
  HandleScopes scopes;
  for (std::uint32_t e = entry; e != ConditionRef::unresolved; e = x.native.nested[e].parent) {
    scopes.insert(scopes.begin(), x.native.nested[e].handles);
  }
  scopes.insert(scopes.begin(), x.native.handles);
  return scopes;
}

/// A kernel that direct_kernel allows takes the direct path (kernel_direct: no allocation), at the
/// top level or nested; else apply_node at the top level (Condition or GraphBuffer arguments), and
/// in a nested plan the node's parameters built with the handles of the plans enclosing it.
Applied patch_param(ExecImpl& x, const GraphImpl& g, std::uint32_t i, std::uint32_t nested) {
  const bool top = nested == ConditionRef::unresolved;
  const std::uint32_t kernel = kernel_index(g, i);
  const KernelLinks& links = kernel_links_of(g, kernel);
  if (direct_kernel(links)) {
    const KernelData& k = kernel_record(g, kernel);
    const cudaGraphNode_t node = top ? x.native.nodes[i] : x.native.nested[nested].nodes[i];
    return {kernel_direct(x, g, i, node, k, *links.layout, argument_block(g, k)), "cudaGraphExecKernelNodeSetParams"};
  }
  if (top) return apply_node(x, i);
  const cudaGraphNode_t node = x.native.nested[nested].nodes[i];
  const DeviceScope device(node_device(g, i, -1));
  mark_changed(x);
  std::vector<void*> argv;
  std::vector<unsigned char> block;
  const cudaKernelNodeParams p = kernel_params(g, kernel, scopes_of(x, nested), x.native.dptrs, block, argv);
  return {exec_kernel_set_params(x, node, p), "cudaGraphExecKernelNodeSetParams"};
}

const void* function(const GraphImpl& g, std::uint32_t i) { return kernel_of(g, i).func; }

}  // namespace patch_fns

const PatchOps patch{patch_fns::apply, patch_fns::update_needs, patch_fns::patch_graph, patch_fns::patch_param,
                     patch_fns::function};
}  // namespace detail::kinds::kernel

}  // namespace graphdsl
