// src/native/builder.hpp — the Builder of materialize: creates the native nodes of a plan and of the
// plans nested in it. Generic parts (order, edges, condition handles, the dispatch) are in
// src/native/materialize.cpp; what each node kind creates is its BuildOps::add (the build section of
// src/kinds/<kind>.cpp), which gets the Builder to reach the state of the build below.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "native/cuda_call.hpp"  // KernelLookup
#include "native/kind_build.hpp"
#include "native/native.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

class DeviceScope;  // native/device_rules.hpp

/// Builds the cudaGraph_t of one plan (materialize): one Builder for the top-level plan and,
/// through build(), the plans nested in it. Its state is public for the kinds' add functions.
class Builder {
 public:
  /// `scopes`: an empty list for scopes_ (materialize lends the thread's kept one).
  Builder(KeepAlive& keep, std::shared_ptr<HostErrorSink>& sink, HostSlots* slots, DeviceScope* devices,
          HandleScopes& scopes)
      : keep_(keep), sink_(sink), slots_(slots), scopes_(scopes), devices_(devices) {}

  /// Adds the nodes of `g` to `graph` in `order`; out[i] receives plan node i's native node.
  void build(const GraphImpl& g, cudaGraph_t graph, const std::vector<std::uint32_t>& order,
             std::vector<cudaGraphNode_t>& out);

  /// Builds `inner`, the plan nested in node i of the plan being built (body `slot` of a conditional node, 0 for a
  /// child plan), into `graph`; `where` (its context in messages) becomes where_ meanwhile. Host
  /// slots are not recorded there; the native nodes of a nested plan that uses parameters are
  /// (Materialized::nested).
  void build_nested(std::uint32_t i, std::uint32_t slot, const GraphImpl& inner, cudaGraph_t graph, std::string where);

  /// Hands the top-level plan's condition handles and allocation addresses to `m`.
  void take_results(Materialized& m);

  /// Node i of `g` as messages name it: with the context of the plan being built.
  NodeInfo info(const GraphImpl& g, std::uint32_t i) const;

  /// A capture stream on the current device (one per device, created on first use).
  cudaStream_t capture_stream();

  /// The cudaEvent_t of event node i of `g` (event_record, event_wait), created now (on the current
  /// device) if this is its first use, and kept alive by the graph; null with `out.api` and `out.rc`
  /// set when it cannot be created.
  cudaEvent_t node_event(const GraphImpl& g, std::uint32_t i, AddedNode& out);

  /// The executable's error sink, which host nodes report to: made by the first host node built
  /// for the executable (a plan without host nodes has none, and its compile allocates none).
  const std::shared_ptr<HostErrorSink>& error_sink();

  /// The memo of the context nodes are created in; null for a plan placed on several devices, whose
  /// nodes are created with their own device current.
  ContextMemo* context_memo() noexcept { return devices_ == nullptr ? &context_memo_ : nullptr; }

  // ---- the state of the build, used by the kinds' add functions (src/kinds/<kind>.cpp) ----------

  KeepAlive& keep_;                       ///< what the root graph keeps alive (retained once the plan is built)
  std::shared_ptr<HostErrorSink>& sink_;  ///< the executable's (error_sink())
  HostSlots* slots_;
  std::string where_;         ///< context of the plan being built, for messages about nested nodes
  HandleScopes& scopes_;      ///< the condition handles of the plans being built, innermost last
  int body_depth_ = 0;        ///< how many conditional bodies enclose the plan being built
  std::vector<void*> dptrs_;  ///< addresses of the top-level plan's allocations, by node
  bool enclosed_ = false;     ///< dptrs_ came from the plan enclosing a child plan built on its own

 private:
  /// Adds node i of `g` through its kind's BuildOps. @throws CudaError naming the node.
  cudaGraphNode_t add(const GraphImpl& g, std::uint32_t i, cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps);

  /// Adds the edge from -> to with its kind's edge data (programmatic: the kernel's programmatic
  /// port; launch completion: its launch-completion port). @throws CudaError naming the node.
  void add_kinded_edge(const GraphImpl& g, std::uint32_t from, std::uint32_t to, cudaGraph_t graph,
                       cudaGraphNode_t native_from, cudaGraphNode_t native_to) const;

  DeviceScope* devices_;      ///< switches devices for placed nodes; null for single-device plans
  ContextMemo context_memo_;  ///< forgotten after a captured node (its function may switch devices)
  std::vector<std::pair<int, NativeStream>> streams_;     ///< capture streams by device, created on first use
  std::vector<cudaGraphConditionalHandle> root_handles_;  ///< of the top-level plan's conditions
  std::vector<NestedNative> nested_;                      ///< Materialized::nested
  std::uint32_t nested_at_ = ConditionRef::unresolved;    ///< the entry of the nested plan being built
  std::vector<NestedLayout> layouts_;                     ///< Materialized::layouts
  std::uint32_t layout_at_ = ConditionRef::unresolved;    ///< the layouts_ entry of the nested plan being built
  bool record_handles_ = false;                           ///< build() gives its handles to nested_[nested_at_]
};

}  // namespace graphdsl::detail
