// src/exec/kind_patch.hpp — the patch concern of the node-kind table: patching a node of the kind in an executable
// (per-node update, setters).
//
// One PatchOps per node kind, defined as `kinds::<kind>::patch` in src/kinds/<kind>.cpp and found
// through patch_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the exec layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstdint>
#include <optional>

#include <cuda_runtime_api.h>

#include "graphdsl/node_kind.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl::detail {

struct ExecImpl;
struct GraphImpl;

/// What one per-node setter returned, and the API that returned it (for messages).
struct Applied {
  cudaError_t rc = cudaSuccess;
  const char* api = "";
};

/// What the changed nodes of an update need that per-node setters cannot do (Executable::update):
/// any of them makes the automatic policy go whole-graph and per_node refuse.
struct UpdateNeeds {
  bool priority_changed = false;  ///< a kernel's priority or launch attributes
  bool multi_dim_copy = false;    ///< a multi-dimensional copy (the memcpy setter takes 1-D operands)
  bool nested_change = false;     ///< condition defaults, conditional bodies, captured nodes
};

/// What graphdsl does per node kind for patching a node of the kind in an executable (per-node update, setters).
struct PatchOps {
  /// Pushes the recorded parameters of plan node i to the executable with one per-node setter
  /// (called with the node's device current).
  Applied (*apply)(ExecImpl& x, std::uint32_t i);
  /// Notes in `needs` what the change of node i (`a`: the executable's plan, `t`: the template)
  /// needs beyond a per-node setter; returns a refusal for a change no update can make. Null:
  /// the kind's setter patches any change.
  std::optional<UpdateResult> (*update_needs)(const GraphImpl& a, const GraphImpl& t, std::uint32_t i,
                                              UpdateNeeds& needs);
  /// Writes the parameters of node i of plan `from` (a plan of the executable's shape) into node i
  /// of the executable's own cudaGraph_t (Materialized::graph) with the graph's node setter, for a
  /// whole-graph update from that graph (exec/update.cpp; called with the node's device current).
  /// Null: the kind's nodes are not patched there, and plans holding one are updated whole-graph
  /// from a materialized template.
  Applied (*patch_graph)(ExecImpl& x, const GraphImpl& from, std::uint32_t i);
  /// Patches node i of plan `g` from its records after Executable::set wrote a parameter's value
  /// into them (exec/parameters.cpp): `g` is the executable's plan (`nested` is
  /// ConditionRef::unresolved) or a plan nested in it whose native nodes are
  /// x.native.nested[nested]. Null: no parameter reaches a node of the kind.
  Applied (*patch_param)(ExecImpl& x, const GraphImpl& g, std::uint32_t i, std::uint32_t nested) = nullptr;
  /// The device function node i of plan `g` runs, whose change by Executable::replace_node counts
  /// as a function change (ExecImpl::function_changes). Null: a node of the kind runs none.
  const void* (*function)(const GraphImpl& g, std::uint32_t i) = nullptr;
  /// For checked copies (InstantiateOptions::check_copies, exec/copy_check.cpp): writes into `p` the
  /// copy node i of the executable's plan makes as compiled, whose device-memory ends are then
  /// watched; false when its parameters cannot be had (compiling has reported why). Null: a node
  /// of the kind copies nothing.
  bool (*compiled_copy)(const ExecImpl& x, std::uint32_t i, cudaMemcpy3DParms& p) = nullptr;
};

/// The PatchOps of `kind`.
const PatchOps& patch_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
