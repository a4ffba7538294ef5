// src/plan/kind_races.hpp — the races concern of the node-kind table: what memory a node of the kind reads and writes
// (check_races()).
//
// One RaceOps per node kind, defined as `kinds::<kind>::races` in src/kinds/<kind>.cpp and found
// through race_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstdint>

#include "graphdsl/node_kind.hpp"

namespace graphdsl::detail {

struct GraphImpl;

namespace race {
struct NodeContext;  // plan/races_model.hpp
}  // namespace race

/// What graphdsl does per node kind for what memory a node of the kind reads and writes (check_races()).
struct RaceOps {
  /// Adds the accesses of a node of the kind to its level (regions it reads and writes, the
  /// accesses of the plans it holds, or its being unbounded), besides its declared ranges, which
  /// the checker adds first. Null: the checker sees no access of its own (empty, event nodes).
  void (*accesses)(const race::NodeContext& node);
  /// How many parameters of node i of g a declared range (gd::reads / gd::writes with a parameter)
  /// may stand for: such a parameter is then left to the declared range (NodeContext::params). Null:
  /// the kind has no parameters a declared range names (its declared ranges are plain ones).
  std::uint32_t (*declared_params)(const GraphImpl& g, std::uint32_t i) = nullptr;
};

/// The RaceOps of `kind`.
const RaceOps& race_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
