// src/plan/kind_rules.hpp — the rules concern of the node-kind table: the rules a node of the kind must satisfy on the
// plan (validate()), and what the plan's edits ask of the kind (a setter's checks, remove_node, placement).
//
// One RuleOps per node kind, defined as `kinds::<kind>::rules` in src/kinds/<kind>.cpp and found
// through rule_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

struct GraphImpl;

namespace rule {
struct ScopedNode;  // plan/rule_kit.hpp
}  // namespace rule

/// What graphdsl does per node kind for the rules a node of the kind must satisfy on the plan (validate()).
struct RuleOps {
  /// Checks the rules of node i of g, a node of the kind (not the plans a child or conditional node
  /// holds: check_plan walks them with their scope); `context` prefixes the message. Null: the
  /// kind has no rule of its own. Part of check_node. @throws UsageError naming the node and the rule.
  void (*check)(const GraphImpl& g, std::uint32_t i, const std::string& context);
  /// Why a node of the kind cannot be placed on a device (Node::on_device), or null when it can
  /// (check_placement).
  const char* not_placeable;
  /// Whether a conditional body may hold a node of the kind (check_plan: bodies may hold kernel,
  /// empty, child, memset, memcpy and conditional nodes).
  bool in_body;
  /// Checks the kind's rules that depend on the plans enclosing node i (check_plan's walk, in node
  /// order, after check_node): the Conditions it refers to, the plans it holds, checked with their
  /// scopes (a child plan, conditional bodies). Null: the kind has none.
  void (*check_scoped)(const rule::ScopedNode& node) = nullptr;
  /// Nodes of the kind may be joined by programmatic and launch-completion edges (EdgeKind other
  /// than full; CUDA allows them between kernel nodes only).
  bool kinded_edges = false;
  /// The checks of a setter that gives node i of `a` (a node of the kind) the parameters of node #0
  /// of `s`, a one-node plan (NodeReplacement, plan/replace.hpp), besides its kind: what the kind's
  /// parameters may not change (an argument layout, a child plan's shape, which arguments or
  /// pointers are Conditions, GraphBuffers or __device__ symbols). Null: none. @throws UsageError.
  void (*check_replacement)(const GraphImpl& a, std::uint32_t i, const GraphImpl& s) = nullptr;
  /// The plans a node of the kind holds (nested_slots) are part of its plan (a child plan): their
  /// kinds count as the plan's (GraphImpl::held_kinds), and in a conditional body their nodes are
  /// body nodes. False for conditional bodies, which are plans of their own.
  bool nested_in_plan = false;
  /// A node of the kind does nothing (empty nodes): a while loop whose body holds only such nodes
  /// never ends.
  bool inert = false;
  /// Removing a node of the kind recounts what the plan holds (GraphImpl::held_kinds, depth,
  /// nested_nodes): it holds nested plans, or rules read whether a child plan holds the kind.
  bool recount_on_remove = false;
  /// Refuses to remove node i of g (Graph::remove_node) while other nodes need it (a graph
  /// allocation whose buffer is used). Null: nothing to check. @throws UsageError.
  void (*check_removal)(const GraphImpl& g, std::uint32_t i) = nullptr;
  /// The kind's placement rules of node i (check_placement, after the kind's not_placeable): what
  /// its placement must agree with (an allocation's device). Null: none. @throws UsageError.
  void (*check_placement)(const GraphImpl& g, std::uint32_t i, const std::string& context) = nullptr;
  /// The device an unplaced node i of the kind is created on (node_device): its allocation's, else
  /// `home`. Null: `home`.
  int (*unplaced_device)(const GraphImpl& g, std::uint32_t i, int home) = nullptr;
};

/// The RuleOps of each kind, by NodeKind (src/kinds/table.cpp).
extern const RuleOps* const rule_table[node_kind_count];

/// The RuleOps of `kind`. Inline, a lookup in the table: the plan's walks ask it for every node.
inline const RuleOps& rule_ops(NodeKind kind) noexcept { return *rule_table[static_cast<std::size_t>(kind)]; }

}  // namespace graphdsl::detail
