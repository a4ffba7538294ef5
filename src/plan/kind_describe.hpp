// src/plan/kind_describe.hpp — the describe concern of the node-kind table: how a node of the kind is described in dumps, DOT labels and messages.
//
// One DescribeOps per node kind, defined as `kinds::<kind>::describe` in src/kinds/<kind>.cpp and found
// through describe_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for how a node of the kind is described in dumps, DOT labels and messages.
struct DescribeOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The DescribeOps of `kind`.
const DescribeOps& describe_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
