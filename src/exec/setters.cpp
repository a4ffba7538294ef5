// src/exec/setters.cpp — patching nodes of an executable one by one: the per-node setter of any
// kind (apply_node, through the kind table: exec/kind_patch.hpp), Executable::replace_node and the
// typed setters, enabling nodes (the kernel setters: src/kinds/kernel_patch.cpp; Executable::set of
// parameters: exec/parameters.cpp).
#include <memory>
#include <utility>
#include <vector>

#include <cuda.h>
#include <fmt/format.h>

#include "exec/child_cache.hpp"
#include "exec/kind_patch.hpp"
#include "exec/patch.hpp"
#include "graphdsl/executable.hpp"
#include "graphdsl/graph.hpp"
#include "native/cuda_call.hpp"
#include "native/device_rules.hpp"
#include "native/driver_params.hpp"
#include "native/native.hpp"
#include "plan/closure_pool.hpp"
#include "plan/diff.hpp"
#include "plan/nested_buffers.hpp"
#include "plan/node_params.hpp"
#include "plan/plan_access.hpp"
#include "plan/recorded_update.hpp"
#include "plan/replace.hpp"
#include "plan/rules.hpp"

namespace graphdsl {
namespace detail {

namespace {

/// The context of the executable's nodes for the driver's memset and memcpy setters: the one they
/// were created in (ExecImpl::context) when the plan places no node, else the current one (the
/// caller has made the node's device current: DeviceScope).
CUcontext node_context(const ExecImpl& x) noexcept { return x.context != nullptr ? x.context : current_context(); }

/// The driver's memory type of one end of a copy in `direction` (`source`: the source end): what the
/// runtime converts cudaMemcpyKind to.
CUmemorytype memory_type(cudaMemcpyKind direction, bool source) noexcept {
  switch (direction) {
    case cudaMemcpyHostToHost: return CU_MEMORYTYPE_HOST;
    case cudaMemcpyHostToDevice: return source ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    case cudaMemcpyDeviceToHost: return source ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    case cudaMemcpyDeviceToDevice: return CU_MEMORYTYPE_DEVICE;
    case cudaMemcpyDefault: break;
  }
  return CU_MEMORYTYPE_UNIFIED;
}

/// One end of a pointer copy in the driver's terms: every field of that end of `d` (`dst`: the
/// destination end) written once, so that `d` needs no zeroing pass first (`d{}` zeroes its 200
/// bytes with `rep stos` under GCC, tens of ns on the setters' hot path).
void driver_end(const cudaPitchedPtr& p, CUmemorytype type, bool dst, CUDA_MEMCPY3D& d) noexcept {
  const bool host = type == CU_MEMORYTYPE_HOST;
  const CUdeviceptr device = host ? 0 : reinterpret_cast<CUdeviceptr>(p.ptr);
  if (dst) {
    d.dstXInBytes = d.dstY = d.dstZ = d.dstLOD = 0;
    d.dstMemoryType = type;
    d.dstHost = host ? p.ptr : nullptr;
    d.dstDevice = device;
    d.dstArray = nullptr;
    d.reserved1 = nullptr;
    d.dstPitch = p.pitch;
    d.dstHeight = p.ysize;
  } else {
    d.srcXInBytes = d.srcY = d.srcZ = d.srcLOD = 0;
    d.srcMemoryType = type;
    d.srcHost = host ? p.ptr : nullptr;
    d.srcDevice = device;
    d.srcArray = nullptr;
    d.reserved0 = nullptr;
    d.srcPitch = p.pitch;
    d.srcHeight = p.ysize;
  }
}

}  // namespace

cudaError_t exec_memset_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaMemsetParams& p) {
  using SetParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS*, CUcontext);
  static const auto driver = reinterpret_cast<SetParams>(driver_entry("cuGraphExecMemsetNodeSetParams", 12000));
  if (driver != nullptr) {
    if (CUcontext ctx = node_context(x)) {
      CUDA_MEMSET_NODE_PARAMS d{};
      d.dst = reinterpret_cast<CUdeviceptr>(p.dst);
      d.pitch = p.pitch;
      d.value = p.value;
      d.elementSize = p.elementSize;
      d.width = p.width;
      d.height = p.height;
      count_cuda_call();
      if (driver(x.exec.get(), node, &d, ctx) == CUDA_SUCCESS) return cudaSuccess;
    }
  }
  return cuda_try(cudaGraphExecMemsetNodeSetParams, x.exec.get(), node, &p);
}

cudaError_t exec_memcpy_set_params(ExecImpl& x, cudaGraphNode_t node, const cudaMemcpy3DParms& p) {
  using SetParams = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D*, CUcontext);
  static const auto driver = reinterpret_cast<SetParams>(driver_entry("cuGraphExecMemcpyNodeSetParams", 12000));
  const bool pointers = p.srcArray == nullptr && p.dstArray == nullptr && p.srcPos.x == 0 && p.srcPos.y == 0 &&
                        p.srcPos.z == 0 && p.dstPos.x == 0 && p.dstPos.y == 0 && p.dstPos.z == 0;
  if (driver != nullptr && pointers) {
    if (CUcontext ctx = node_context(x)) {
      CUDA_MEMCPY3D d;  // every field written below
      driver_end(p.srcPtr, memory_type(p.kind, true), false, d);
      driver_end(p.dstPtr, memory_type(p.kind, false), true, d);
      d.WidthInBytes = p.extent.width;
      d.Height = p.extent.height;
      d.Depth = p.extent.depth;
      count_cuda_call();
      if (driver(x.exec.get(), node, &d, ctx) == CUDA_SUCCESS) return cudaSuccess;
    }
  }
  return cuda_try(cudaGraphExecMemcpyNodeSetParams, x.exec.get(), node, &p);
}

Applied apply_node(ExecImpl& x, std::uint32_t i) {
  mark_node_changed(x, i);
  const GraphImpl& g = recorded_plan(x);
  const DeviceScope device(node_device(g, i, -1));  // setters act in the node's context (-1: no switch)
  return patch_ops(node_kind(g, i)).apply(x, i);
}

}  // namespace detail

// ---- Executable: per-node setters (their checks: plan/replace.hpp) ------------------------------

void Executable::replace_node(const Node& target, const Graph& source) {
  detail::ExecImpl& x = impl();
  const detail::GraphImpl& s = source.impl();
  const NodeKind kind = detail::node_kind(s, 0);
  const std::uint32_t i = detail::exec_index(x, target, kind);
  detail::GraphImpl& a = x.plan.impl();
  const auto function_of = detail::patch_ops(kind).function;  // null: the kind runs no function
  const void* function = function_of != nullptr ? function_of(a, i) : nullptr;
  detail::NodeReplacement change(a, i, s);  // checked and written, or nothing changed
  detail::Applied applied;
  try {
    applied = detail::apply_node(x, i);  // may throw: a child plan's captured function, for one
  } catch (...) {
    change.undo();
    throw;
  }
  if (applied.rc != cudaSuccess) {
    change.undo();
    detail::throw_cuda(applied.rc, applied.api, x.plan.impl().info(i));
  }
  if (function_of != nullptr && function_of(a, i) != function) {  // set_kernel: another function
    ++x.function_changes;
    x.function_changed_node = i;
  }
}

namespace detail {
namespace {

/// The direct setters of memset, memcpy, host, event and child nodes: writes `now` into the recorded
/// `slot` of node i, checks the node's rules, and patches the node with `apply()` (an Applied: the
/// CUDA call made and its result); on any failure puts the old parameters back (`also_restore`
/// restores what else was written) and rethrows.
template <class Params, class Apply, class Restore>
void patch_recorded(ExecImpl& x, std::uint32_t i, Params& slot, Params now, Apply apply, Restore also_restore) {
  GraphImpl& a = x.plan.impl();
  Params old = std::move(slot);
  slot = std::move(now);
  try {
    check_node(a, i);
    const DeviceScope device(node_device(a, i, -1));
    mark_node_patched(x, i);  // memset, memcpy, host, event and child nodes: no kernel record changes
    const Applied applied = apply();
    if (applied.rc != cudaSuccess) throw_cuda(applied.rc, applied.api, a.info(i));
  } catch (...) {
    slot = std::move(old);
    also_restore();
    throw;
  }
}

/// A node kind's own patch (PatchOps::apply) as patch_recorded's `apply`.
auto kind_apply(ExecImpl& x, std::uint32_t i) {
  return [&x, i] { return patch_ops(node_kind(recorded_plan(x), i)).apply(x, i); };
}

/// Setting child node i's graph to `m` (a materialized child plan: prepared or kept) as
/// patch_recorded's `apply`.
auto set_child_graph(ExecImpl& x, std::uint32_t i, const Materialized& m) {
  return [&x, i, &m] { return set_child_node(x, i, m.graph.get()); };
}

}  // namespace
}  // namespace detail

void Executable::set_memset_raw(const Node& node, void* dst, unsigned int value, unsigned int element_size,
                                std::size_t count, detail::ScalarType type) {
  const std::size_t bytes = detail::checked_bytes(count, element_size, "add_memset");
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::memset);
  if (!detail::buffer_uses_of(a, i).empty()) {  // replace_node says why a raw pointer cannot stand for the buffer
    Graph one("setter");
    one.add_memset_raw(dst, value, element_size, count, 1, bytes);
    detail::set_memset_value_type(one.impl(), 0, type);
    replace_node(node, one);
    return;
  }
  const detail::ScalarType old_type = detail::memset_value_type(a, i);
  detail::set_memset_value_type(a, i, type);
  cudaMemsetParams& slot = detail::memset_of(a, i);
  detail::patch_recorded(
      x, i, slot, detail::memset_node_params(dst, value, element_size, count, 1, bytes),
      [&] {
        return detail::Applied{detail::exec_memset_set_params(x, x.native.nodes[i], slot),
                               "cudaGraphExecMemsetNodeSetParams"};
      },
      [&] { detail::set_memset_value_type(a, i, old_type); });
}

void Executable::set_memcpy_bytes(const Node& node, void* dst, const void* src, std::size_t bytes,
                                  cudaMemcpyKind kind) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::memcpy);
  // A graph buffer or a __device__ symbol at one end: replace_node compares the new copy's
  // structure with the node's and says why it is refused (a raw pointer cannot stand for either).
  if (!detail::buffer_uses_of(a, i).empty() || a.symbol_use(i) != nullptr) {
    Graph one("setter");
    one.add_memcpy_bytes(dst, src, bytes, kind);
    replace_node(node, one);
    return;
  }
  cudaMemcpy3DParms& slot = detail::memcpy_of(a, i);
  detail::patch_recorded(
      x, i, slot, detail::memcpy_node_params(dst, bytes, src, bytes, bytes, 1, kind),
      [&] { return detail::set_memcpy_node(x, x.native.nodes[i], slot); }, [] {});
}

void Executable::set_child(const ChildNode& node, const Graph& child) {
  detail::ExecImpl& x = impl();
  // Read before the recorded plan is touched: were `child` that plan, the change below clears its
  // stamp again, so the entry kept under this stamp is never found for the changed plan.
  const std::uint64_t stamp = child.impl().content_stamp();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::child);
  // A plan set on this node before: its kept graph, and the recorded plan shares its kept copy.
  if (const detail::CachedChild* kept = detail::find_cached_child(x, i, child.impl(), stamp)) {
    detail::patch_recorded(x, i, detail::child_slot(a, i), kept->plan, detail::set_child_graph(x, i, kept->native),
                           [] {});
    return;
  }
  // The recorded plan takes its own deep copy (as a one-node plan's would reach it through replace_node),
  // holding the plan's buffers as add_child would.
  std::shared_ptr<const detail::GraphImpl> copy = detail::embedded_child(a, child.impl());
  detail::check_child_shape(a, i, *copy);
  if (auto r = detail::child_rebuild_refusal(a, i, *copy)) throw UsageError(r->reason);
  if (!detail::cacheable_child(child.impl())) {
    detail::patch_recorded(x, i, detail::child_slot(a, i), std::move(copy), detail::kind_apply(x, i), [] {});
    return;
  }
  detail::reserve_cached_child(x);
  detail::Materialized m;
  detail::patch_recorded(
      x, i, detail::child_slot(a, i), copy, [&] { return detail::apply_child_plan(x, i, m); }, [] {});
  detail::keep_cached_child(x, i, std::move(copy), std::move(m), stamp);
}

namespace detail {

/// A child plan prepared for child node `node` of one executable (Executable::prepare_child).
struct PreparedChildImpl {
  std::weak_ptr<const int> exec;          ///< ExecImpl::alive of that executable
  std::uint32_t node = 0;                 ///< the child node's index in its plan
  std::shared_ptr<const GraphImpl> plan;  ///< its own copy of the child plan
  bool shared = false;                    ///< no parameters in it: the recorded plan may share `plan`
  Materialized native;                    ///< its cudaGraph_t, with what the graph keeps alive
};

void PreparedChildImplDelete::destroy(PreparedChildImpl* p) noexcept { delete p; }

}  // namespace detail

PreparedChild::PreparedChild() noexcept = default;
PreparedChild::PreparedChild(detail::PreparedChildImpl* impl) noexcept : impl_(impl) {}
PreparedChild::PreparedChild(PreparedChild&&) noexcept = default;
PreparedChild& PreparedChild::operator=(PreparedChild&&) noexcept = default;
PreparedChild::~PreparedChild() = default;

PreparedChild Executable::prepare_child(const ChildNode& node, const Graph& child) const {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::child);
  std::unique_ptr<detail::PreparedChildImpl> p(new detail::PreparedChildImpl);
  p->exec = detail::alive_token(x);
  p->node = i;
  p->plan = detail::embedded_child(x.plan.impl(), child.impl());
  detail::check_child_shape(x.plan.impl(), i, *p->plan);
  if (auto r = detail::child_rebuild_refusal(x.plan.impl(), i, *p->plan)) throw UsageError(r->reason);
  p->shared = !detail::has_nested_param_entries(*p->plan);
  // UsageError before any CUDA call
  const std::vector<std::uint32_t> order = detail::check_child_plan(*p->plan, x.plan.impl());
  p->native = detail::materialize(*p->plan, order, x.sink, &x.native.dptrs);
  return PreparedChild(p.release());
}

void Executable::set_child(const ChildNode& node, const PreparedChild& child) {
  detail::ExecImpl& x = impl();
  detail::GraphImpl& a = x.plan.impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::child);
  const detail::PreparedChildImpl* p = child.impl();
  if (p == nullptr) throw UsageError(fmt::format("{}: set_child with an empty PreparedChild", a.info(i).describe()));
  // x.alive is null when x never prepared one: then p, whose executable may be gone (a null lock),
  // is another's.
  if (x.alive == nullptr || p->exec.lock() != x.alive || p->node != i) {
    throw UsageError(
        fmt::format("{}: this PreparedChild was prepared for another node or another executable; prepare "
                    "one with prepare_child(node, plan) on this executable",
                    a.info(i).describe()));
  }
  // Executable::set writes parameter values into the recorded plan's child plans: a plan with
  // parameters is copied, so that the prepared one stays what its graph holds.
  detail::patch_recorded(x, i, detail::child_slot(a, i), p->shared ? p->plan : detail::own_copy(*p->plan),
                         detail::set_child_graph(x, i, p->native), [] {});
}

void Executable::set_host_closure(const Node& node, detail::HostClosure* closure) {
  std::shared_ptr<detail::HostClosure> owned = detail::own_closure(closure);
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, NodeKind::host);
  detail::patch_recorded(x, i, detail::host_of(x.plan.impl(), i), std::move(owned), detail::kind_apply(x, i), [] {});
}

void Executable::set_event_node(const Node& node, NodeKind kind, const Event& event) {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, kind);
  detail::patch_recorded(x, i, detail::event_slot(x.plan.impl(), i), event, detail::kind_apply(x, i), [] {});
}

void Executable::set_event(const EventRecordNode& node, const Event& event) {
  set_event_node(node, NodeKind::event_record, event);
}

void Executable::set_event(const EventWaitNode& node, const Event& event) {
  set_event_node(node, NodeKind::event_wait, event);
}

void Executable::set_enabled_node(const Node& node, NodeKind kind, bool on) {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, kind);
  detail::mark_changed(x);
  // The driver's entry point first (as the other setters), then the runtime, whose error is reported.
  using SetEnabled = CUresult (*)(CUgraphExec, CUgraphNode, unsigned int);
  static const auto driver = reinterpret_cast<SetEnabled>(detail::driver_entry("cuGraphNodeSetEnabled", 11060));
  const cudaError_t rc = detail::driver_first(driver, cudaGraphNodeSetEnabled, x.exec.get(), x.native.nodes[i],
                                              on ? 1u : 0u);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphNodeSetEnabled", x.plan.impl().info(i));
}

bool Executable::enabled_node(const Node& node, NodeKind kind) const {
  detail::ExecImpl& x = impl();
  const std::uint32_t i = detail::exec_index(x, node, kind);
  unsigned int on = 0;
  const cudaError_t rc = detail::cuda_try(cudaGraphNodeGetEnabled, x.exec.get(), x.native.nodes[i], &on);
  if (rc != cudaSuccess) detail::throw_cuda(rc, "cudaGraphNodeGetEnabled", x.plan.impl().info(i));
  return on != 0;
}

}  // namespace graphdsl
