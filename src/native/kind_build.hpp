// src/native/kind_build.hpp — the build concern of the node-kind table: adding a node of the kind to a CUDA graph (materialize).
//
// One BuildOps per node kind, defined as `kinds::<kind>::build` in src/kinds/<kind>.cpp and found
// through build_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the native layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for adding a node of the kind to a CUDA graph (materialize).
struct BuildOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The BuildOps of `kind`.
const BuildOps& build_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
