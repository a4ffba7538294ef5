// src/plan/kind_rules.hpp — the rules concern of the node-kind table: the rules a node of the kind must satisfy on the
// plan (validate()).
//
// One RuleOps per node kind, defined as `kinds::<kind>::rules` in src/kinds/<kind>.cpp and found
// through rule_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstdint>
#include <string>

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

struct GraphImpl;

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
};

/// The RuleOps of `kind`.
const RuleOps& rule_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
