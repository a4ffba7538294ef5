// src/plan/plan_access.hpp — what the native and exec layers read and write of a plan (GraphImpl), as
// the plan layer's functions: src/native/ and src/exec/ name no GraphImpl field (scripts/check-structure.sh
// fails if they do), so the plan's storage can change behind these functions.
//
// Everything here is inline and returns references or pointers into the plan: the setters,
// per-node updates and materialize read through them at the cost of the field access they replace.
// GraphImpl's own members (info, node_name, set_node_name, resolve, alloc_node, param_index,
// param_ref, peer_copy, symbol_use, holds) and the plan functions of graph_impl.hpp (launch_of,
// attributes_of, device_updatable, edge_kind, nested_plan, ...), rules.hpp (buffer_uses_of, check_node),
// placement.hpp (node_device), diff.hpp (SavedParams) and node_params.hpp (param_bytes) do the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/graph_impl.hpp"
#include "plan/kind_compare.hpp"
#include "plan/records/on_update.hpp"
#include "plan/walk.hpp"

namespace graphdsl::detail {

// ---- the plan ----------------------------------------------------------------------------------

/// The plan's name (Graph::name), for messages.
inline const std::string& plan_name(const GraphImpl& g) noexcept { return g.name; }
/// The plan's id (Graph::id): which plan a node handle or a Parameter belongs to.
inline std::uint64_t plan_id(const GraphImpl& g) noexcept { return g.id; }
/// Seals `g` as an executable's recorded plan: node handles no longer change it (Executable::plan()).
/// `origin` is the id of the plan it was compiled from, whose node handles its getters accept too.
inline void seal_as_recorded(GraphImpl& g, std::uint64_t origin) noexcept {
  g.sealed = Sealed::recorded;
  g.recorded_from = origin;
}

// ---- nodes -------------------------------------------------------------------------------------

/// The number of top-level nodes of `g` (nodes of nested plans not counted).
inline std::size_t node_count(const GraphImpl& g) noexcept { return g.nodes.size(); }
/// The kind of node i.
inline NodeKind node_kind(const GraphImpl& g, std::uint32_t i) noexcept { return g.nodes[i].kind; }
/// Whether node i was removed (Graph::remove_node): a tombstone, an empty node with no edges that is
/// not materialized (node_count counts it: indices are positions).
inline bool removed(const GraphImpl& g, std::uint32_t i) noexcept { return g.nodes[i].removed != 0; }
/// The nodes of `g` that were not removed (Graph::node_count).
inline std::size_t live_node_count(const GraphImpl& g) noexcept { return g.nodes.size() - g.removed_nodes; }
/// The device node i is placed on as the plan says (-1: none; node_device gives the one it is created on).
inline int placed_device(const GraphImpl& g, std::uint32_t i) noexcept { return g.nodes[i].device; }
/// The predecessors of node i (over edges of every kind: edge_kind tells them apart).
inline const SmallVec& predecessors(const GraphImpl& g, std::uint32_t i) noexcept { return g.nodes[i].preds; }
/// Whether `g` has edges that are not full ones (programmatic, launch completion): without them
/// every edge_kind is full.
inline bool has_kinded_edges(const GraphImpl& g) noexcept { return !g.edge_kinds.empty(); }
/// Bit k: the plan (or a child plan) holds a node of NodeKind k (GraphImpl::held_kinds).
inline std::uint32_t held_kinds(const GraphImpl& g) noexcept { return g.held_kinds; }

// ---- memset, memcpy, event, host nodes ---------------------------------------------------------

/// The recorded parameters of memset node i (graph buffers not resolved: memset_params does that).
inline const cudaMemsetParams& memset_of(const GraphImpl& g, std::uint32_t i) noexcept {
  return g.memsets[g.nodes[i].payload];
}
inline cudaMemsetParams& memset_of(GraphImpl& g, std::uint32_t i) noexcept { return g.memsets[g.nodes[i].payload]; }
/// The element type of memset node i's value (how dumps show it).
inline ScalarType memset_value_type(const GraphImpl& g, std::uint32_t i) noexcept {
  return g.memset_types[g.nodes[i].payload];
}
inline void set_memset_value_type(GraphImpl& g, std::uint32_t i, ScalarType type) noexcept {
  g.memset_types[g.nodes[i].payload] = type;
}
/// The recorded parameters of memcpy node i (graph buffers and symbols not resolved: memcpy_params does that).
inline const cudaMemcpy3DParms& memcpy_of(const GraphImpl& g, std::uint32_t i) noexcept {
  return g.memcpys[g.nodes[i].payload];
}
inline cudaMemcpy3DParms& memcpy_of(GraphImpl& g, std::uint32_t i) noexcept { return g.memcpys[g.nodes[i].payload]; }
/// The memcpy nodes of `g` made by add_memcpy_peer, in node order.
inline const std::vector<PeerCopy>& peer_copies_of(const GraphImpl& g) noexcept { return g.peer_copies; }
/// The Event of event node i (event_record, event_wait).
inline const Event& event_of(const GraphImpl& g, std::uint32_t i) noexcept { return g.events[g.nodes[i].payload]; }
/// The same, to replace (the direct event setter: exec/setters.cpp).
inline Event& event_slot(GraphImpl& g, std::uint32_t i) noexcept { return g.events[g.nodes[i].payload]; }
/// The number of host nodes of `g` (top level): the host slots of its materialized graph.
inline std::size_t host_count(const GraphImpl& g) noexcept { return g.hosts.size(); }
/// The callable of host node k (by its index among the host nodes, as the host slots are indexed).
inline const std::shared_ptr<HostClosure>& host_closure(const GraphImpl& g, std::size_t k) noexcept {
  return g.hosts[k];
}
/// The callable of host node i (by its node index), to replace (the direct host setter).
inline std::shared_ptr<HostClosure>& host_of(GraphImpl& g, std::uint32_t i) noexcept {
  return g.hosts[g.nodes[i].payload];
}

// ---- graph memory ------------------------------------------------------------------------------

/// The allocation of mem_alloc node i.
inline const AllocData& alloc_of(const GraphImpl& g, std::uint32_t i) noexcept { return g.allocs[g.nodes[i].payload]; }
/// Whether `g` (top level) has mem_alloc nodes.
inline bool allocates_graph_memory(const GraphImpl& g) noexcept { return !g.allocs.empty(); }
/// The bytes the mem_alloc nodes of `g` (top level) allocate per launch.
inline std::size_t allocated_bytes(const GraphImpl& g) noexcept {
  std::size_t bytes = 0;
  for (const AllocData& a : g.allocs) bytes += a.bytes;
  return bytes;
}
/// The first mem_alloc node of `g` that no mem_free node of `g` frees, or ConditionRef::unresolved.
inline std::uint32_t first_unfreed_alloc(const GraphImpl& g) {
  if (g.allocs.empty()) return ConditionRef::unresolved;
  std::vector<bool> freed(g.nodes.size());
  for (const std::uint32_t a : g.frees) {
    if (a < freed.size()) freed[a] = true;
  }
  for (const AllocData& a : g.allocs) {  // in node order
    if (!freed[a.node]) return a.node;
  }
  return ConditionRef::unresolved;
}

// ---- nested plans and conditions ---------------------------------------------------------------

/// The plans node i of a plan embeds, by slot: a child node's plan (slot 0), a conditional node's
/// bodies (slot k: body k); none for the other kinds. The one walk over nested plans: each kind that
/// nests says where its plans are (CompareOps::nested_slots).
struct NestedSlots {
  std::shared_ptr<const GraphImpl>* first = nullptr;
  std::size_t count = 0;
  std::shared_ptr<const GraphImpl>* begin() const noexcept { return first; }
  std::shared_ptr<const GraphImpl>* end() const noexcept { return first + count; }
  std::size_t size() const noexcept { return count; }
  const GraphImpl& operator[](std::size_t k) const noexcept { return *first[k]; }
};
inline NestedSlots nested_slots(GraphImpl& g, std::uint32_t i) noexcept {
  const NodeData& n = g.nodes[i];
  const auto slots = compare_ops(n.kind).nested_slots;
  return slots != nullptr ? slots(g, n.payload) : NestedSlots{};
}
/// The same, to read. A plan's nested plans are immutable once embedded (shared by its copies).
inline NestedSlots nested_slots(const GraphImpl& g, std::uint32_t i) noexcept {
  return nested_slots(const_cast<GraphImpl&>(g), i);
}

/// The type of conditional node i, or nothing when node i is not a conditional node (the
/// conditional kind's, src/kinds/conditional.cpp).
std::optional<ConditionalType> conditional_type(const GraphImpl& g, std::uint32_t i) noexcept;

/// The plan embedded by child node i.
inline const GraphImpl& child_plan(const GraphImpl& g, std::uint32_t i) noexcept {
  return *g.children[g.nodes[i].payload];
}
/// The same, to replace (the direct child setter: exec/setters.cpp).
inline std::shared_ptr<const GraphImpl>& child_slot(GraphImpl& g, std::uint32_t i) noexcept {
  return g.children[g.nodes[i].payload];
}
/// Conditional node i: its type, its condition and its bodies.
inline const ConditionalData& conditional_of(const GraphImpl& g, std::uint32_t i) noexcept {
  return g.conditionals[g.nodes[i].payload];
}
/// The number of conditions `g` declares (add_condition).
inline std::size_t condition_count(const GraphImpl& g) noexcept { return g.conditions.size(); }
/// Condition k (< condition_count) declared by `g`: its default value and whether it is assigned each launch.
inline const ConditionData& declared_condition(const GraphImpl& g, std::size_t k) noexcept { return g.conditions[k]; }
/// The recorded plan `a` takes the condition defaults of `t`, a plan of the same shape (after a
/// whole-graph update).
inline void take_condition_defaults(GraphImpl& a, const GraphImpl& t) noexcept {
  on_update::take_condition_defaults::apply(a.conditions, t.conditions);
}
/// Whether `holds(p)` is true of `g` or of a plan nested in it (child plans, conditional bodies, at any depth).
template <class Holds>
bool any_nested(const GraphImpl& g, const Holds& holds) {
  if (holds(g)) return true;
  bool found = false;
  each_nested_slot(g, [&](const std::shared_ptr<const GraphImpl>& p) { found = found || any_nested(*p, holds); });
  return found;
}
/// Whether `g` or a plan nested in it declares a condition.
inline bool has_nested_conditions(const GraphImpl& g) {
  return any_nested(g, [](const GraphImpl& p) { return !p.conditions.empty(); });
}

// ---- parameters --------------------------------------------------------------------------------

/// The number of parameter entries of `g` (param_index gives the entry of a parameter).
inline std::size_t param_count(const GraphImpl& g) noexcept { return g.params.size(); }
/// Whether `g` has parameter entries (declared here, or used here and declared elsewhere).
inline bool has_param_entries(const GraphImpl& g) noexcept { return !g.params.empty(); }
/// Whether `g` or a plan nested in it has parameter entries (Executable::set writes into those plans).
inline bool has_nested_param_entries(const GraphImpl& g) {
  return any_nested(g, [](const GraphImpl& p) { return !p.params.empty(); });
}
/// Parameter entry k (< param_count) of `g`: its type, name, value, uses and nested uses.
inline const ParamData& param_entry(const GraphImpl& g, std::size_t k) noexcept { return g.params[k]; }
inline ParamData& param_entry(GraphImpl& g, std::size_t k) noexcept { return g.params[k]; }
/// The recorded plan `a` takes the parameter values and names of `t`, a plan of the same shape
/// (same entries, same types: after an update).
inline void take_param_values(GraphImpl& a, const GraphImpl& t) {
  on_update::take_param_values::apply(a.params, t.params);
}

}  // namespace graphdsl::detail
