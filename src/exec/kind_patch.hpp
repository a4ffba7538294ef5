// src/exec/kind_patch.hpp — the patch concern of the node-kind table: patching a node of the kind in an executable (per-node update, setters).
//
// One PatchOps per node kind, defined as `kinds::<kind>::patch` in src/kinds/<kind>.cpp and found
// through patch_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the exec layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for patching a node of the kind in an executable (per-node update, setters).
struct PatchOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The PatchOps of `kind`.
const PatchOps& patch_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
