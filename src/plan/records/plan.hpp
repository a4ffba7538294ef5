// plan/records/plan.hpp — what every plan keeps, whatever its node kinds: nodes, edges of other kinds than full,
// parameters, and the reference by position to a Condition that several kinds use.
//
// Plain data with no CUDA call: the one place any layer reads these records (plan/records/stores.def
// lists the plan's stores of them).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graphdsl/detail/plan_types.hpp"
#include "graphdsl/detail/small_vec.hpp"
#include "graphdsl/node.hpp"
#include "graphdsl/node_kind.hpp"
#include "graphdsl/parameter.hpp"

namespace graphdsl::detail {

/// A reference from a node to a Condition, by position: the plan `levels` steps out from the
/// node's plan (0: the same plan, 1: the plan enclosing it, ...) and the index in that plan's
/// `conditions`. Positions, not ids, so that two plans built the same way compare equal.
struct ConditionRef {
  static constexpr std::uint32_t unresolved = 0xffffffffu;
  std::uint32_t levels = unresolved;  ///< `unresolved`: not declared in this plan or one enclosing it
  std::uint32_t index = 0;
};

/// One node of a plan (24 bytes: the diff of Executable::update reads every node of both plans, so
/// the record holds only what every node has; names live in GraphImpl::names).
struct NodeData {
  SmallVec preds;             ///< set semantics, in insertion order
  std::uint32_t payload = 0;  ///< index into the per-kind vector
  NodeKind kind = NodeKind::empty;
  /// 1: removed by Graph::remove_node, a tombstone that keeps the other nodes' indices (kind empty,
  /// no edges, no device; plan/records/on_remove.hpp). A byte, not padding: the diff compares blocks
  /// of records with memcmp.
  std::uint8_t removed = 0;
  std::int16_t device = -1;  ///< the device the node is placed on; -1: the current device at compile time
};

/// An edge that is not a full one (programmatic, launch completion): GraphImpl::edge_kinds.
struct EdgeKindData {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  EdgeKind kind = EdgeKind::full;
};

/// Where a parameter's value is written: a kernel argument, a memset's value, a memcpy's endpoint.
enum class ParamPlace : std::uint8_t { kernel_argument, memset_value, memcpy_dst, memcpy_src };

/// Where a parameter is used: a kernel argument (its byte offset in the kernel's block, position
/// counting from 1), a memset value or a memcpy endpoint (position 0).
struct ParamUse {
  std::uint32_t node;
  std::uint32_t offset = 0;    ///< kernel_argument: the byte offset in the node's argument block
  std::uint32_t position = 0;  ///< kernel_argument: the argument, counting from 1; else 0
  ParamPlace place = ParamPlace::kernel_argument;
};

/// A plan nested in node `node` of a plan (a child plan: slot 0; a conditional node: its body
/// `slot`) that uses a parameter, and the index of the parameter's entry in that plan's params (by
/// position: a plan updated from a template keeps the positions, not the template's ids).
struct NestedUse {
  std::uint32_t node;
  std::uint32_t slot = 0;
  std::uint32_t entry = 0;
};

/// A parameter of a plan: declared by Graph::parameter() on it, or used in it and declared by an
/// enclosing plan (a conditional body using its plan's parameter) or by a child plan it embeds.
/// Its type, name, current value, uses in this plan (in node order) and the nested plans that use it
/// (each has an entry for it: NestedUse::entry). One entry per parameter and plan, in the order the plan
/// met them, so plans built the same way have the same entries.
struct ParamData {
  std::uint64_t uid;
  const ParamType* type;
  std::string name;
  std::array<unsigned char, max_parameter_bytes> value{};
  std::vector<ParamUse> uses;
  std::vector<NestedUse> nested;  ///< in the order embedded
  bool declared = true;           ///< false: declared by an enclosing plan or by a child plan
};

}  // namespace graphdsl::detail
