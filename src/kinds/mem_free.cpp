// src/kinds/mem_free.cpp — the mem_free node kind (Graph::add_mem_free): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_mem_free(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const NodeData& n = g.nodes[i];
  if (g.frees[n.payload] == no_buffer) {
    fail(g, i, ctx, fmt::format("the GraphBuffer it frees is not allocated by graph {} (a buffer is freed in the "
                                "plan that allocates it)",
                                quoted(g.name)));
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::mem_free {
const RuleOps rules{&rule::check_mem_free, nullptr, false};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// A free writes all of the buffer it frees.
void mem_free_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  const std::uint32_t alloc = g.frees[n.payload];
  if (alloc == ConditionRef::unresolved) return;
  a.origin = Origin::free;
  a.r = whole(Space::buffer, g.allocs[g.nodes[alloc].payload].uid);
  level.accesses.push_back(a);
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::mem_free {
const RaceOps races{&race::mem_free_accesses};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::mem_free {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::mem_free

// ==== end patch ====
