// src/kinds/conditional.cpp — the conditional node kind (Graph::add_if / add_if_else / add_while / add_switch): what graphdsl does for one such node,
// concern by concern, each section filling the kind's entry of one table (src/kinds/table.cpp).
#include "kinds/kinds.hpp"

// ==== make (the Graph::add_* of this kind) ====

// ==== end make ====

// ==== rules (plan/kind_rules.hpp) ====

#include "plan/rule_kit.hpp"

namespace graphdsl::detail::rule {
namespace {

void check_conditional_shape(const GraphImpl& g, std::uint32_t i, const std::string& ctx) {
  const ConditionalData& c = g.conditionals[g.nodes[i].payload];
  const std::size_t n = c.bodies.size();
  if (c.type > ConditionalType::switch_case) {
    fail(g, i, ctx, fmt::format("ConditionalType({}) is not a conditional type (if_then, if_else, while_loop or "
                                "switch_case)",
                                static_cast<unsigned>(c.type)));
  }
  const bool ok = c.type == ConditionalType::switch_case ? n >= 1 : n == (c.type == ConditionalType::if_else ? 2u : 1u);
  if (!ok) {
    fail(g, i, ctx, fmt::format("{} {} node with {} bodies; {}", c.type == ConditionalType::switch_case || c.type == ConditionalType::while_loop ? "a" : "an", to_string(c.type), n,
                                c.type == ConditionalType::switch_case ? "a switch needs at least one body"
                                : c.type == ConditionalType::if_else   ? "an if-else has exactly two bodies"
                                                                       : "it has exactly one body"));
  }
  if (c.condition.levels == ConditionRef::unresolved) {
    fail(g, i, ctx, fmt::format("its Condition is not declared in graph {} or a plan enclosing it (an empty "
                                "Condition, or one declared by another plan)",
                                quoted(g.name)));
  }
}

}  // namespace
}  // namespace graphdsl::detail::rule

namespace graphdsl::detail::kinds::conditional {
const RuleOps rules{&rule::check_conditional_shape,
                    "a conditional node runs on the device its plan is compiled on", true};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end rules ====

// ==== races (plan/kind_races.hpp) ====

#include <fmt/format.h>

#include "plan/races_model.hpp"

namespace graphdsl::detail::race {
namespace {

/// Evaluating its Condition reads it; the accesses of its bodies, analysed first.
void conditional_accesses(const NodeContext& c) {
  const GraphImpl& g = c.g;
  const std::uint32_t i = c.i;
  const NodeData& n = g.nodes[i];
  Level& level = c.level;
  Access a = c.access();
  const ConditionalData& cd = g.conditionals[n.payload];
  if (const std::uint64_t uid = condition_uid(&c.here, cd.condition); uid != 0) {
    a.mode = AccessMode::read;
    a.origin = Origin::conditional;
    a.r = make_region(Space::condition, uid, 0, 1, 0, 1);
    level.accesses.push_back(a);
  }
  for (std::size_t b = 0; b < cd.bodies.size(); ++b) {
    add_nested(level, i, static_cast<std::int32_t>(b),
               analyze(*cd.bodies[b],
                       fmt::format("in body {} ({}) of {} of graph '{}'", b, cd.bodies[b]->name,
                                   level.info(i).describe(), g.name),
                       &c.here, &level));
  }
}

}  // namespace
}  // namespace graphdsl::detail::race

namespace graphdsl::detail::kinds::conditional {
const RaceOps races{&race::conditional_accesses};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end races ====

// ==== compare (plan/kind_compare.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const CompareOps compare{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end compare ====

// ==== describe (plan/kind_describe.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const DescribeOps describe{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end describe ====

// ==== build (native/kind_build.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const BuildOps build{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end build ====

// ==== patch (exec/kind_patch.hpp) ====

namespace graphdsl::detail::kinds::conditional {
const PatchOps patch{};
}  // namespace graphdsl::detail::kinds::conditional

// ==== end patch ====
