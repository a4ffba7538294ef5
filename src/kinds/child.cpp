// src/kinds/child.cpp — the child node kind (Graph::add_child): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

namespace graphdsl::detail::kinds::child {
// No rule of its own: the child plan is checked by check_plan, with its scope.
const RuleOps rules{nullptr, "a child plan places its own nodes (call on_device on them)", true};
}  // namespace graphdsl::detail::kinds::child

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <fmt/format.h>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// The accesses of the child plan, analysed first.
void child_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  add_nested(level, i, -1,
             analyze(*g.children[n.payload], fmt::format("in {} of graph '{}'", level.info(i).describe(), g.name),
                     &c.here, &level));
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::child {
const RaceOps races{&race::child_accesses};
}  // namespace graphdsl::detail::kinds::child

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::child {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::child

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::child {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::child

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::child {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::child

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::child {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::child

// ==== end patch ====
