// src/kinds/mem_alloc.cpp — the mem_alloc node kind (Graph::add_mem_alloc): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_mem_alloc(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.allocs[n.payload].bytes == 0) fail(g, i, ctx, "allocates 0 bytes; a graph allocation needs at least one");
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::mem_alloc {
const RuleOps rules{&rule::check_mem_alloc, nullptr, false};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// An allocation writes all of its buffer.
void mem_alloc_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  a.origin = Origin::alloc;
  a.r = whole(Space::buffer, g.allocs[n.payload].uid);
  level.accesses.push_back(a);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::mem_alloc {
const RaceOps races{&race::mem_alloc_accesses};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::mem_alloc {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::mem_alloc

// ==== end patch ====
