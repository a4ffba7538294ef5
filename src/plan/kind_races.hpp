// src/plan/kind_races.hpp — the races concern of the node-kind table: what memory a node of the kind reads and writes (check_races()).
//
// One RaceOps per node kind, defined as `kinds::<kind>::races` in src/kinds/<kind>.cpp and found
// through race_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

/// What graphdsl does per node kind for what memory a node of the kind reads and writes (check_races()).
struct RaceOps {
  int placeholder = 0;  ///< replaced by the concern's functions
};

/// The RaceOps of `kind`.
const RaceOps& race_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
