// src/plan/kind_describe.hpp — the describe concern of the node-kind table: how a node of the kind is described in
// dumps, DOT labels and messages.
//
// One DescribeOps per node kind, defined as `kinds::<kind>::describe` in src/kinds/<kind>.cpp and found
// through describe_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graphdsl/node_kind.hpp"
#include "plan/graph_impl.hpp"

namespace graphdsl::detail {

/// The uses of parameters by one node: (parameter index, use), for the node being printed.
using NodeParams = std::vector<std::pair<std::uint32_t, ParamUse>>;

/// What graphdsl does per node kind for how a node of the kind is described in dumps, DOT labels and messages.
/// The helpers the kinds share (condition_ref, param_use_text, dot_escape, dump_into, dot_cluster)
/// are in src/plan/print_parts.hpp.
struct DescribeOps {
  /// What node i of `g` does, in a few words, after "#i kind 'name': " in dumps ("grid (1,1,1) block
  /// (32,1,1) ..."); `params` are the node's parameter uses. Null for a kind with nothing to say.
  std::string (*summary)(const GraphImpl& g, std::uint32_t i, const NodeParams& params);
  /// Appends the kind's lines to node i's DOT label (each after "\\n", escaped with dot_escape):
  /// a captured node's description, a kernel's launch attributes. Null for a kind that adds none.
  void (*dot_label)(std::string& label, const GraphImpl& g, std::uint32_t i);
  /// The Graphviz shape of the kind's nodes in DOT exports.
  const char* dot_shape;
  /// For a kind whose nodes hold nested plans (child plan, conditional bodies): dumps node i's
  /// nested plans under its line, `indent` being the node's. Null for the other kinds.
  void (*dump_nested)(std::string& out, const GraphImpl& g, std::uint32_t i, const std::string& indent);
  /// The same for DOT: node i's nested plans as dashed clusters tied to the node (`prefix`: the
  /// prefix of g's node ids). Null for the other kinds.
  void (*dot_nested)(std::string& out, const GraphImpl& g, std::uint32_t i, const std::string& prefix,
                     const std::string& indent);
  /// What differs in node i between plans a and t (of one shape, the node's parameters differing),
  /// in the user's terms: the first field ("grid (2,1,1) -> (4,1,1)"), for graphdsl::explain. Null
  /// for a kind whose dump lines say it (explain then gives both summaries).
  std::string (*change)(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) = nullptr;
};

/// The DescribeOps of `kind`.
const DescribeOps& describe_ops(NodeKind kind) noexcept;

}  // namespace graphdsl::detail
