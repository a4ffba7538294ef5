// src/plan/kind_compare.hpp — the compare concern of the node-kind table: comparing, hashing, saving and restoring a node's parameters (diff(), fingerprint(), updates).
//
// One CompareOps per node kind, defined as `kinds::<kind>::compare` in src/kinds/<kind>.cpp and found
// through compare_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for comparing, hashing, saving and restoring a node's parameters (diff(), fingerprint(), updates).
struct CompareOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The CompareOps of `kind`.
const CompareOps& compare_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
