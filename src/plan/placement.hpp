// src/plan/placement.hpp — where nodes run, as the plan says it: the placement rules that need no CUDA
// call and the device a node is created on. The checks that need CUDA are native/device_rules.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "plan/graph_impl.hpp"
#include "plan/kind_rules.hpp"

namespace graphdsl::detail {

/// Throws the UsageError of a placement rule node i breaks: "<context><node>: <rule>".
[[noreturn]] void refuse_placement(const GraphImpl& g, std::uint32_t i, const std::string& context,
                                   const std::string& rule);

/// The placement rules of node i that need no CUDA call (which kinds can be placed, peer copies,
/// an allocation's device); `ops` are the RuleOps of node i's kind. Part of check_node.
/// @throws UsageError naming the node.
void check_placement(const GraphImpl& g, std::uint32_t i, const RuleOps& ops, const std::string& context);

/// Nodes of a conditional body run on the conditional node's device: none may be placed.
/// @throws UsageError naming the node.
void check_body_placement(const GraphImpl& body, const std::string& context);

/// The device a node is created on: its placement, else the one its kind gives an unplaced node
/// (RuleOps::unplaced_device: an allocation's, a free's allocation's), else `home`. Inline: the
/// setters ask it for every call.
inline int node_device(const GraphImpl& g, std::uint32_t i, int home) {
  const NodeData& n = g.nodes[i];
  if (n.device >= 0) return n.device;
  const auto unplaced = rule_ops(n.kind).unplaced_device;
  return unplaced != nullptr ? unplaced(g, i, home) : home;
}

}  // namespace graphdsl::detail
