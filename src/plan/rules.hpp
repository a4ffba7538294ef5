// src/plan/rules.hpp — plan checks shared by Graph::validate() and instantiate().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/graph_impl.hpp"
#include "plan/handles.hpp"

namespace graphdsl::detail {

/// Checks every per-node rule and the absence of cycles (recursively into child plans) and
/// returns the order in which nodes are created in the driver: a topological order, deterministic
/// for a given plan. `context` prefixes messages about nodes of child plans.
/// @throws UsageError naming the node and the rule.
std::vector<std::uint32_t> check_plan(const GraphImpl& g, const std::string& context = {});
/// check_plan with the order written into `order` (its storage reused: compile passes a kept one).
void check_plan_into(const GraphImpl& g, std::vector<std::uint32_t>& order);
/// check_plan of `g` as a child plan of a node of `outer`, a top-level plan (Executable::set_child):
/// its references to the buffers and conditions of `outer` are checked there; `by_position`: a
/// buffer reference needs only a mem_alloc node at its position (a child taken from a template of
/// `outer`'s shape, whose allocations are other buffers at the same places), not that very buffer.
std::vector<std::uint32_t> check_child_plan(const GraphImpl& g, const GraphImpl& outer, bool by_position = false);

/// The enclosing conditions that `copy`, a copy of a plan nested in `from` (a child plan or a
/// conditional body of one of from's nodes), refers to outside itself, with their uids as `from`
/// and the plans enclosing it declare them (Graph::body_plan and child_plan record them).
std::vector<OuterBinding> outer_bindings_of(const GraphImpl& copy, const GraphImpl& from);

/// A deterministic topological order of g's nodes (the order they are created in the driver), the
/// removed ones (Graph::remove_node) left out.
/// @throws UsageError naming the whole cycle if there is one.
std::vector<std::uint32_t> creation_order(const GraphImpl& g, const std::string& context = {});
/// creation_order written into `order`.
void creation_order_into(const GraphImpl& g, const std::string& context, std::vector<std::uint32_t>& order);

/// Checks the per-node rules of node i (not the plans a child or conditional node holds).
/// @throws UsageError naming the node and the rule.
void check_node(const GraphImpl& g, std::uint32_t i, const std::string& context = {});

/// The GraphBuffer uses of node i of g (a view into g.buffer_uses, which is in node order).
struct BufferUses {
  const BufferUse* first;
  const BufferUse* last;
  const BufferUse* begin() const { return first; }
  const BufferUse* end() const { return last; }
  bool empty() const { return first == last; }
};
BufferUses buffer_uses_of(const GraphImpl& g, std::uint32_t i);

/// Whether `bytes` bytes from byte `offset` of the allocation of mem_alloc node `alloc_node` are
/// all of it (a whole buffer, not a slice).
bool whole_buffer(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes);
/// How dumps and messages show a slice: " bytes [64, 128)"; empty for a whole buffer.
std::string slice_text(const GraphImpl& g, std::uint32_t alloc_node, std::uint64_t offset, std::uint64_t bytes);
/// How dumps show the buffer a node of g uses, `r` being {levels, mem_alloc node}: "'tmp'" and its
/// slice_text for a buffer of g; "#3 of the plan 1 level out, bytes [0, 256)" for one allocated by a
/// plan enclosing g (a child plan or a body does not know that plan).
std::string buffer_text(const GraphImpl& g, ConditionRef r, std::uint64_t offset, std::uint64_t bytes);
/// buffer_text of buffer use `u` of g (a memset's or memcpy's pointer), or "" when it is a whole
/// buffer of g or no plan allocates it (dumps name only slices and buffers of enclosing plans).
std::string buffer_use_text(const GraphImpl& g, const BufferUse& u);

/// Short ref of node i: 'name' or #i.
std::string node_ref(const GraphImpl& g, std::uint32_t i);

/// Throws the UsageError for an empty handle or one whose plan was destroyed (naming the plan from
/// the plan table, plan/handles.hpp: nothing freed is read).
[[noreturn]] void throw_unusable_handle(const Node& n);

/// Throws the UsageError for the handle of node i of g, removed by Graph::remove_node (plan/edit.cpp).
[[noreturn]] void throw_removed_node(const GraphImpl& g, std::uint32_t i);

/// The plan a node handle refers to. @throws UsageError for an empty handle, one whose plan was
/// destroyed, or one of a node removed from its plan.
inline GraphImpl& handle_plan(const Node& n) {
  if (GraphImpl* g = live_plan(n.ref())) {
    if (n.index() < g->nodes.size() && g->nodes[n.index()].removed != 0) throw_removed_node(*g, n.index());
    return *g;
  }
  throw_unusable_handle(n);
}

/// The plan of `n`, which `what` (e.g. "naming it") is about to change. @throws UsageError as
/// handle_plan, and for a conditional body once its builder returned (copies of the plan share it)
/// or an executable's recorded plan.
GraphImpl& changeable(const Node& n, const char* what);

}  // namespace graphdsl::detail
