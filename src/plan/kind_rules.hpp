// src/plan/kind_rules.hpp — the rules concern of the node-kind table: the rules a node of the kind must satisfy on the plan (validate()).
//
// One RuleOps per node kind, defined as `kinds::<kind>::rules` in src/kinds/<kind>.cpp and found
// through rule_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for the rules a node of the kind must satisfy on the plan (validate()).
struct RuleOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The RuleOps of `kind`.
const RuleOps& rule_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
