// src/native/kind_build.hpp — the build concern of the node-kind table: adding a node of the kind to a CUDA graph
// (materialize).
//
// One BuildOps per node kind, defined as `kinds::<kind>::build` in src/kinds/<kind>.cpp and found
// through build_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the native layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "graphdsl/node_kind.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

class Builder;  // src/native/builder.hpp

/// What adding one plan node to a CUDA graph gives: the native node, or the CUDA call that failed
/// (rc is not cudaSuccess) with a hint for the message. The Builder throws the CudaError naming the node.
struct AddedNode {
  cudaGraphNode_t node = nullptr;
  cudaError_t rc = cudaSuccess;
  const char* api = "";  ///< the last CUDA call made: the one that failed when rc is not cudaSuccess
  std::string hint;      ///< what the CudaError's message adds (empty: nothing)
};

/// What graphdsl does per node kind for adding a node of the kind to a CUDA graph (materialize).
struct BuildOps {
  /// Adds node i of plan `g` (of this kind) to `graph` after `deps` (the native nodes of its
  /// predecessors over full edges); `b` holds the state of the build (condition handles, graph
  /// buffers, keep-alives, nested plans: src/native/builder.hpp).
  AddedNode (*add)(Builder& b, const GraphImpl& g, std::uint32_t i, cudaGraph_t graph,
                   const std::vector<cudaGraphNode_t>& deps);
  /// Whether a setter may give a node of the kind something to keep alive (an event, a child
  /// plan's closures, a host callable): materialize then gives the graph a keep-alive box even if
  /// the build put nothing in it (executables cannot retain user objects later).
  bool may_keep;
  /// The compile-time device checks of node i of plan `g` beyond its placement (native/device_rules.cpp,
  /// check_devices): `count` devices exist, `current` is the current one. Null: nothing of the
  /// kind's own to check.
  void (*check_devices)(const GraphImpl& g, std::uint32_t i, int count, int current) = nullptr;
  /// Whether a device-launchable executable may hold a node of the kind (CUDA allows kernel,
  /// memcpy, memset and child nodes; a child's own plan is checked the same way).
  bool device_launch = false;
  /// Whether add may create native nodes that no plan node maps to (a captured function's, created
  /// in the graph just before the node's own native node, which then stands for them).
  bool foreign_nodes = false;
};

/// The BuildOps of `kind`.
const BuildOps& build_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
