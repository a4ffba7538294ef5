// src/plan/kind_compare.hpp — the compare concern of the node-kind table: comparing, hashing, saving and restoring a
// node's parameters (diff(), fingerprint(), updates).
//
// One CompareOps per node kind, defined as `kinds::<kind>::compare` in src/kinds/<kind>.cpp and found
// through compare_ops() (src/kinds/table.cpp, generated from graphdsl/detail/node_kinds.def).
// Code of the plan layer dispatches on a node's kind through this table, never a switch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "graphdsl/node_kind.hpp"
#include "graphdsl/update.hpp"

namespace graphdsl::detail {

struct GraphImpl;
struct SavedParams;      // plan/diff.hpp
struct Fnv;              // plan/diff.hpp
struct FingerprintMemo;  // plan/diff.hpp
struct NestedSlots;      // plan/plan_access.hpp

/// What graphdsl does per node kind for comparing, hashing, saving and restoring a node's parameters (diff(),
/// fingerprint(), updates).
struct CompareOps {
  /// Whether node `pa` (its payload) of plan `a` and node `pb` of plan `b`, of this kind and of the
  /// same shape, have the same parameters: what diff() lists as changed.
  bool (*same_params)(const GraphImpl& a, std::uint32_t pa, const GraphImpl& b, std::uint32_t pb);
  /// The kind's own structure check of node i of `a` (the executable's plan) and `b` (the template),
  /// once the kind and device match: the refusal naming what differs (`ctx` prefixes it), or
  /// nothing. Null: the kind has no structure beyond its edges.
  std::optional<UpdateResult> (*compare_shape)(const GraphImpl& a, const GraphImpl& b, std::uint32_t i,
                                               const std::string& ctx);
  /// Hashes what compare_shape compares of node i of g into `f` (Graph::fingerprint; nested plans
  /// through add_nested). Null: nothing beyond the node's kind, device and edges.
  void (*fingerprint)(Fnv& f, const GraphImpl& g, std::uint32_t i, FingerprintMemo& memo);
  /// compare_shape and fingerprint run after the node's edges are compared and hashed (child
  /// plans: an edge refusal is reported before one from inside the child), not before.
  bool after_edges;
  /// Copies the parameters of node `payload` of g into `s`; with `own`, nested plans are deep copies.
  void (*save)(SavedParams& s, const GraphImpl& g, std::uint32_t payload, bool own);
  /// Writes the parameters in `s` into node `payload` of g (same kind; for kernels, same signature).
  void (*restore)(const SavedParams& s, GraphImpl& g, std::uint32_t payload);
  /// The kind holds nested plans (child plans, conditional bodies): a changed node of the kind is
  /// checked with its scopes (check_plan), not alone (check_node).
  bool nested;
  /// Whether changing node `pa` (its payload) of the executable's plan `a` into node `pt` of the
  /// template `t` (same shape, other parameters) needs cudaGraphExecUpdate, the kind's per-node
  /// setter being unable to make it (a kernel's priority or launch attributes, a multi-dimensional
  /// copy, a conditional or captured node). Null: the setter makes every change.
  bool (*needs_whole_update)(const GraphImpl& a, std::uint32_t pa, const GraphImpl& t, std::uint32_t pt) = nullptr;
  /// The plans node `payload` of the kind holds, by slot (nested_slots, plan/plan_access.hpp: the one
  /// walk over nested plans). Null: none.
  NestedSlots (*nested_slots)(GraphImpl& g, std::uint32_t payload) = nullptr;
  /// The refusal of an update that changes node i of `a` (the executable's plan) into node i of `t`
  /// (the template, same shape) that no update can make (a child plan that cannot be rebuilt in an
  /// executable), or nothing. Null: the kind refuses no change.
  std::optional<UpdateResult> (*change_refusal)(const GraphImpl& a, const GraphImpl& t, std::uint32_t i) = nullptr;
};

/// CompareOps::needs_whole_update of a kind any change of which needs cudaGraphExecUpdate.
inline bool always_whole_update(const GraphImpl&, std::uint32_t, const GraphImpl&, std::uint32_t) { return true; }

/// The CompareOps of each kind, by NodeKind (src/kinds/table.cpp).
extern const CompareOps* const compare_table[node_kind_count];

/// The CompareOps of `kind`. Inline, a lookup in the table: the diff and the walks over nested
/// plans ask it for every node.
inline const CompareOps& compare_ops(NodeKind kind) noexcept { return *compare_table[static_cast<std::size_t>(kind)]; }

}  // namespace graphdsl::detail
