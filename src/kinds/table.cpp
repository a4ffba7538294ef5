// src/kinds/table.cpp — the node-kind table: for each line of graphdsl/detail/node_kinds.def, the
// entry of each concern, defined in src/kinds/<kind>.cpp. The only place that maps a NodeKind to
// code: every per-kind dispatch in the library goes through the accessors below, or through the
// inline rule_ops and compare_ops, which read the rules and compare tables defined here.
#include <cstddef>

#include "kinds/kinds.hpp"

namespace graphdsl::detail {

namespace {

/// One node kind's entry of the concerns whose accessors are out of line.
struct KindEntry {
  const RaceOps* races;
  const DescribeOps* describe;
  const BuildOps* build;
  const PatchOps* patch;
};

constexpr KindEntry table[] = {
#define GRAPHDSL_NODE_KIND(name, what) \
  KindEntry{&kinds::name::races, &kinds::name::describe, &kinds::name::build, &kinds::name::patch},
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
};
static_assert(sizeof table / sizeof table[0] == static_cast<std::size_t>(node_kind_count));

const KindEntry& entry(NodeKind kind) noexcept { return table[static_cast<std::size_t>(kind)]; }

}  // namespace

// The rules and compare concerns are read for every node of the plan layer's walks: their tables
// are arrays of their own, read by the inline accessors of plan/kind_rules.hpp and plan/kind_compare.hpp.
const RuleOps* const rule_table[node_kind_count] = {
#define GRAPHDSL_NODE_KIND(name, what) &kinds::name::rules,
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
};
const CompareOps* const compare_table[node_kind_count] = {
#define GRAPHDSL_NODE_KIND(name, what) &kinds::name::compare,
#include "graphdsl/detail/node_kinds.def"
#undef GRAPHDSL_NODE_KIND
};

const RaceOps& race_ops(NodeKind kind) noexcept { return *entry(kind).races; }
const DescribeOps& describe_ops(NodeKind kind) noexcept { return *entry(kind).describe; }
const BuildOps& build_ops(NodeKind kind) noexcept { return *entry(kind).build; }
const PatchOps& patch_ops(NodeKind kind) noexcept { return *entry(kind).patch; }

}  // namespace graphdsl::detail
